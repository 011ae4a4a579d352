import { describe, expect, it } from 'vitest';
import { maskKey } from '../../src/keys/mask.js';
import { SecretFormatError, generateSecret, parseSecret } from '../../src/keys/secret.js';

describe('parseSecret', () => {
  it('accepts base64 of 32 bytes, as generateSecret makes', () => {
    const text = generateSecret();
    const secret = parseSecret(text);
    expect(secret).toHaveLength(32);
    expect(secret.toString('base64')).toBe(text);
  });

  it('accepts the base64url spelling and surrounding whitespace', () => {
    const bytes = Buffer.alloc(32, 0xfb);
    expect(parseSecret(`  ${bytes.toString('base64url')}\n`).equals(bytes)).toBe(true);
  });

  it('generates a different secret every time', () => {
    expect(new Set(Array.from({ length: 20 }, generateSecret)).size).toBe(20);
  });

  it.each([
    ['too short', Buffer.alloc(16, 7).toString('base64')],
    ['too long', Buffer.alloc(33, 7).toString('base64')],
    ['not base64', 'this is not base64 at all: secretvalue!!'],
    ['mixed alphabets', `${Buffer.alloc(30, 0xfb).toString('base64')}_-`],
    ['empty', '   '],
  ])('rejects a value that is %s, without echoing it', (_label, value) => {
    let caught: unknown;
    try {
      parseSecret(value, 'MY_SECRET');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SecretFormatError);
    const message = (caught as Error).message;
    expect(message).toContain('MY_SECRET');
    if (value.trim() !== '') expect(message).not.toContain(value.trim());
    expect(message).not.toContain('secretvalue');
  });

  it('says how many bytes the value decodes to, so the operator knows what went wrong', () => {
    expect(() => parseSecret(Buffer.alloc(16).toString('base64'))).toThrow(/exactly 32 bytes but decodes to 16/);
  });
});

describe('maskKey', () => {
  it('shows only the last 4 characters', () => {
    expect(maskKey('fk_live_abcdefgh1234')).toBe('••••1234');
    expect(maskKey('12345678')).toBe('••••5678');
  });

  it('shows nothing of keys shorter than 8 characters', () => {
    expect(maskKey('1234567')).toBe('••••');
    expect(maskKey('ab')).toBe('••••');
    expect(maskKey('')).toBe('••••');
  });
});
