import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_LENGTH } from '@feedbot/feed-api-contract';
import {
  decryptKeyRecord,
  encryptKeyRecord,
  secretKid,
  type KeyRecordV1,
} from '../../src/keys/crypto.js';
import { KeyRecordError, type KeyRecordErrorReason } from '../../src/keys/errors.js';
import { GUILD_A, GUILD_B, canaryKey, newSecret, sampleKey } from './helpers.js';

function reasonOf(fn: () => unknown): KeyRecordErrorReason | 'no error' {
  try {
    fn();
    return 'no error';
  } catch (error) {
    expect(error).toBeInstanceOf(KeyRecordError);
    // Whatever the failure, its message must not carry the key.
    expect((error as Error).message).not.toContain(canaryKey());
    return (error as KeyRecordError).reason;
  }
}

/** Flips one bit of a base64 field. */
function flip(base64: string, byteIndex = 0): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[byteIndex % bytes.length]! ^= 0x01;
  return bytes.toString('base64');
}

describe('key record v1', () => {
  const secret = newSecret();

  it('round-trips the whole StoredKey', () => {
    const key = sampleKey();
    const record = encryptKeyRecord(key, GUILD_A, secret);
    expect(record.v).toBe(1);
    expect(record.kid).toBe(secretKid(secret));
    expect(decryptKeyRecord(record, GUILD_A, secret)).toEqual(key);
  });

  it('holds no plaintext: neither the key nor its metadata appear in the record', () => {
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    const text = JSON.stringify(record);
    expect(text).not.toContain('CANARY');
    expect(text).not.toContain('feeds:read');
    expect(Buffer.from(record.ct, 'base64').toString('latin1')).not.toContain('CANARY');
  });

  it('uses a fresh IV for every write of the same key', () => {
    const records = Array.from({ length: 50 }, () => encryptKeyRecord(sampleKey(), GUILD_A, secret));
    expect(new Set(records.map((r) => r.iv)).size).toBe(50);
    expect(new Set(records.map((r) => r.ct)).size).toBe(50);
    expect(Buffer.from(records[0]!.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(records[0]!.tag, 'base64')).toHaveLength(16);
  });

  it.each(['ct', 'tag', 'iv'] as const)('refuses a record whose %s was altered', (field) => {
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    for (const index of [0, 5, 11]) {
      const tampered: KeyRecordV1 = { ...record, [field]: flip(record[field], index) };
      expect(reasonOf(() => decryptKeyRecord(tampered, GUILD_A, secret))).toBe('tampered_or_moved');
    }
  });

  it('refuses a record copied to another guild', () => {
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    expect(reasonOf(() => decryptKeyRecord(record, GUILD_B, secret))).toBe('tampered_or_moved');
  });

  it('refuses a record copied to another namespace', () => {
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret, { namespace: 'guild-keys' });
    expect(reasonOf(() => decryptKeyRecord(record, GUILD_A, secret, { namespace: 'other-keys' }))).toBe(
      'tampered_or_moved',
    );
  });

  it('reports a record under another secret as wrong_secret, naming its kid', () => {
    const other = newSecret();
    const record = encryptKeyRecord(sampleKey(), GUILD_A, other);
    let caught: KeyRecordError | undefined;
    try {
      decryptKeyRecord(record, GUILD_A, secret);
    } catch (error) {
      caught = error as KeyRecordError;
    }
    expect(caught?.reason).toBe('wrong_secret');
    expect(caught?.kid).toBe(secretKid(other));
    expect(caught?.message).toContain(secretKid(other));
    expect(caught?.message).not.toContain(other.toString('base64'));
  });

  it('reads a record under an older secret when given the list [current, ...old]', () => {
    const old = newSecret();
    const record = encryptKeyRecord(sampleKey(), GUILD_A, old);
    expect(decryptKeyRecord(record, GUILD_A, [secret, old])).toEqual(sampleKey());
  });

  it('treats a forged kid (pointing at another configured secret) as tampering', () => {
    const old = newSecret();
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    const relabelled = { ...record, kid: secretKid(old) };
    expect(reasonOf(() => decryptKeyRecord(relabelled, GUILD_A, [secret, old]))).toBe('tampered_or_moved');
  });

  it('refuses unknown versions', () => {
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    expect(reasonOf(() => decryptKeyRecord({ ...record, v: 2 }, GUILD_A, secret))).toBe('unknown_version');
    expect(reasonOf(() => decryptKeyRecord({ ...record, v: '1' }, GUILD_A, secret))).toBe('unknown_version');
  });

  it.each([
    ['null', null],
    ['a string', 'fk_live_plaintext'],
    ['an array', []],
    ['no version', { kid: 'deadbeef', iv: 'x', tag: 'y', ct: 'z' }],
    ['an object as version', { v: {} }],
  ])('refuses %s as malformed', (_label, value) => {
    expect(reasonOf(() => decryptKeyRecord(value, GUILD_A, secret))).toBe('malformed');
  });

  it('refuses v1 records with bad fields as malformed', () => {
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    const bad: unknown[] = [
      { ...record, iv: Buffer.alloc(16).toString('base64') },
      { ...record, tag: Buffer.alloc(8).toString('base64') },
      { ...record, ct: '' },
      { ...record, ct: 'not base64!' },
      { ...record, kid: 'XYZ' },
      { ...record, extra: 'field' },
      { v: 1, kid: record.kid },
    ];
    for (const value of bad) expect(reasonOf(() => decryptKeyRecord(value, GUILD_A, secret))).toBe('malformed');
  });

  it('validates the payload on the way in and on the way out', () => {
    expect(() => encryptKeyRecord({ ...sampleKey(), scopes: ['admin' as never] }, GUILD_A, secret)).toThrow(TypeError);
    expect(() => encryptKeyRecord({ ...sampleKey(), apiKey: 'has space' }, GUILD_A, secret)).toThrow(
      /apiKey/,
    );
  });

  it('insists on 32-byte secrets', () => {
    expect(() => encryptKeyRecord(sampleKey(), GUILD_A, Buffer.alloc(16))).toThrow(/32-byte/);
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    expect(() => decryptKeyRecord(record, GUILD_A, [secret, Buffer.alloc(31)])).toThrow(/32-byte/);
  });

  it('round-trips any valid key and refuses any single-bit change (property)', () => {
    // Valid as the contract's ApiKeySchema says: printable ASCII, at least API_KEY_LENGTH.min.
    const apiKey = fc.stringMatching(new RegExp(`^[\\x21-\\x7e]{${API_KEY_LENGTH.min},80}$`));
    const field = fc.constantFrom('ct', 'tag', 'iv') as fc.Arbitrary<'ct' | 'tag' | 'iv'>;
    fc.assert(
      fc.property(apiKey, field, fc.nat(), fc.integer({ min: 0, max: 7 }), (key, name, index, bit) => {
        const record = encryptKeyRecord(sampleKey(key), GUILD_A, secret);
        expect(decryptKeyRecord(record, GUILD_A, secret).apiKey).toBe(key);
        const bytes = Buffer.from(record[name], 'base64');
        bytes[index % bytes.length]! ^= 1 << bit;
        const tampered = { ...record, [name]: bytes.toString('base64') };
        expect(() => decryptKeyRecord(tampered, GUILD_A, secret)).toThrow(KeyRecordError);
      }),
      { numRuns: 200 },
    );
  });
});
