import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/request.js';
import { keyFingerprint } from '../../src/audit/fingerprint.js';

describe('keyFingerprint', () => {
  const key = 'fbk_TestKeyForUnitTests_9f3Kq2';

  it('is 16 hex characters, the same for the same key and different for another one', () => {
    expect(keyFingerprint(key)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyFingerprint(key)).toBe(keyFingerprint(key));
    expect(keyFingerprint(`${key}x`)).not.toBe(keyFingerprint(key));
  });

  it('shows nothing of the key and matches no other hash of it', () => {
    expect(keyFingerprint(key)).not.toContain(key.slice(-4));
    const other = Buffer.from(hashApiKey(key), 'base64url').toString('hex');
    expect(other).not.toContain(keyFingerprint(key));
  });
});
