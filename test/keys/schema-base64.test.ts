/**
 * Two per-call steps of the envelope are written for speed; these tests hold them to the plain
 * versions they stand for. The record schema's base64 check (a scan plus a length test instead of
 * a pattern of groups) accepts exactly the strings the pattern of groups accepts. IVs cut from a pool of random bytes
 * (instead of randomBytes(12) per write) are never handed out twice, across pool refills.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { decryptKeyRecord, sealKeyRecord } from '../../src/keys/crypto.js';
import { IV_BYTES, KeyRecordV1Schema } from '../../src/keys/schema.js';
import { GUILD_A, newSecret, sampleKey } from './helpers.js';

const GROUPS_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const decodedLength = (value: string) => (value.length / 4) * 3 - (value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0);
const valid = { v: 1, kid: '0123abcd', iv: 'AAAAAAAAAAAAAAAA', tag: 'AAAAAAAAAAAAAAAAAAAAAA==', ct: 'AAAA' } as const;

// Mostly base64 characters and padding, with a few others, so both verdicts come up often.
const base64ish = fc
  .array(fc.constantFrom(...'ABCXYZabcxyz0189+/=', '=', '=', '-', '_', ' ', '\n', 'é'), { maxLength: 40 })
  .map((chars) => chars.join(''));

test('the ct check accepts exactly what the pattern of groups accepts', () => {
  fc.assert(
    fc.property(base64ish, (ct) => {
      const expected = GROUPS_PATTERN.test(ct) && decodedLength(ct) > 0;
      expect(KeyRecordV1Schema.safeParse({ ...valid, ct }).success).toBe(expected);
    }),
    { numRuns: 5000 },
  );
});

test('the iv and tag checks accept exactly what the pattern of groups accepts, and their length', () => {
  fc.assert(
    fc.property(base64ish, (value) => {
      const ok = GROUPS_PATTERN.test(value);
      expect(KeyRecordV1Schema.safeParse({ ...valid, iv: value }).success).toBe(ok && decodedLength(value) === 12);
      expect(KeyRecordV1Schema.safeParse({ ...valid, tag: value }).success).toBe(ok && decodedLength(value) === 16);
    }),
    { numRuns: 5000 },
  );
  for (const padded of ['AAAAAAAAAAAAAAA=', 'AAAAAAAAAAAAAA==', '====', 'AAA==', 'A===']) {
    expect(KeyRecordV1Schema.safeParse({ ...valid, iv: padded }).success).toBe(false);
  }
});

test('IVs drawn from the pool are never repeated across refills, and every record opens', () => {
  const secret = newSecret();
  // A 4 KB pool holds 341 IVs: 2,000 writes cross five refills.
  const records = Array.from({ length: 2000 }, () => sealKeyRecord(sampleKey(), GUILD_A, secret));
  const ivs = new Set(records.map((record) => record.iv));
  expect(ivs.size).toBe(records.length);
  for (const record of records) expect(Buffer.from(record.iv, 'base64')).toHaveLength(IV_BYTES);
  // An IV is encoded before the next write: a record does not change when later ones are sealed.
  const first = { ...records[0]! };
  sealKeyRecord(sampleKey(), GUILD_A, secret);
  expect(records[0]).toEqual(first);
  for (const record of records.filter((_, i) => i % 97 === 0)) expect(decryptKeyRecord(record, GUILD_A, secret)).toEqual(sampleKey());
});
