/** The key store at rest: no plaintext on disk, authenticated records bound to their guild and secret. */
import { describe, expect } from 'vitest';
import { encryptKeyRecord, secretKid } from '../../src/keys/crypto.js';
import { GUILD_A, GUILD_B, canaryKey, keysTest, newSecret, readAllFiles, sampleKey , errorOf } from './helpers.js';

describe('KeyStore encryption at rest', () => {
  keysTest('the SQLite file and its journal never hold the plaintext key', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
    const snapshots: Array<Array<{ name: string; bytes: Buffer }>> = [];
    let writing = true;
    // Sample the directory while writes are in flight, to catch the rollback journal while it exists.
    const sampler = (async () => {
      while (writing) {
        snapshots.push(await readAllFiles(db.dir));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let round = 0; round < 40; round += 1) {
      await store.set(GUILD_A, sampleKey(canaryKey('A')));
      await store.set(GUILD_B, sampleKey(canaryKey('B')));
    }
    await store.delete(GUILD_B);
    writing = false;
    await sampler;
    await store.close();
    snapshots.push(await readAllFiles(db.dir));

    const names = new Set(snapshots.flat().map((file) => file.name));
    expect(names).toContain('feedbot.sqlite');
    const final = snapshots.at(-1)!.find((file) => file.name === 'feedbot.sqlite')!.bytes;
    // Positive control: we are reading the right bytes (the guild id is stored in clear as the key).
    expect(final.includes(`guild-keys:${GUILD_A}`)).toBe(true);
    for (const file of snapshots.flat()) {
      expect(file.bytes.includes('CANARY'), `${file.name} contains plaintext`).toBe(false);
      expect(file.bytes.includes('9f3c1e7b5d2a4806'), `${file.name} contains plaintext`).toBe(false);
    }
  });

  keysTest('holds no plaintext in the -wal file either, if the shared file is switched to WAL', async ({ db }) => {
    const raw = await db.openRaw();
    await (raw.keyv.store as { query: (sql: string) => Promise<unknown> }).query('PRAGMA journal_mode = WAL');
    const store = await db.openStore({ secret: newSecret() });
    for (let index = 0; index < 20; index += 1) await store.set(GUILD_A, sampleKey());
    const files = await readAllFiles(db.dir);
    const wal = files.find((file) => file.name === 'feedbot.sqlite-wal');
    expect(wal?.bytes.includes(`guild-keys:${GUILD_A}`)).toBe(true);
    for (const file of files) expect(file.bytes.includes('CANARY'), file.name).toBe(false);
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
  });

  keysTest('writes a fresh IV and ciphertext each time the same key is stored', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
    const raw = await db.openRaw();
    await store.set(GUILD_A, sampleKey());
    const first = (await raw.readEntry(GUILD_A))!.record as { iv: string; ct: string };
    await store.set(GUILD_A, sampleKey());
    const second = (await raw.readEntry(GUILD_A))!.record as { iv: string; ct: string };
    expect(second.iv).not.toBe(first.iv);
    expect(second.ct).not.toBe(first.ct);
  });

  keysTest('refuses a tampered record with a typed error', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret(), cacheSize: 0 });
    const raw = await db.openRaw();
    await store.set(GUILD_A, sampleKey());
    const entry = (await raw.readEntry(GUILD_A))!;
    const record = entry.record as { ct: string };
    const ct = Buffer.from(record.ct, 'base64');
    ct[3]! ^= 0x80;
    await raw.keyv.set(GUILD_A, { ...record, ct: ct.toString('base64') });
    const error = await errorOf(store.get(GUILD_A));
    expect(error.code).toBe('unreadable');
    expect(error.reason).toBe('tampered_or_moved');
    expect(error.guildId).toBe(GUILD_A);
    expect(error.message).not.toContain('CANARY');
    // The record is still there: has() answers about existence, get() about usability.
    expect(await store.has(GUILD_A)).toBe(true);
  });

  keysTest('refuses a record copied into another guild', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret(), cacheSize: 0 });
    const raw = await db.openRaw();
    await store.set(GUILD_A, sampleKey());
    await raw.keyv.set(GUILD_B, (await raw.readEntry(GUILD_A))!.record);
    expect((await errorOf(store.get(GUILD_B))).reason).toBe('tampered_or_moved');
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
  });

  keysTest('refuses records under an unconfigured secret, and reads them when given as previous secret', async ({ db }) => {
    const oldSecret = newSecret();
    const current = newSecret();
    const before = await db.openStore({ secret: oldSecret });
    await before.set(GUILD_A, sampleKey());
    await before.close();

    const wrong = await db.openStore({ secret: current });
    const error = await errorOf(wrong.get(GUILD_A));
    expect(error.reason).toBe('wrong_secret');
    expect(error.message).toContain(secretKid(oldSecret));
    expect(await wrong.audit()).toEqual({ total: 1, current: 0, previous: 0, unknownSecret: [GUILD_A], malformed: [] });
    await wrong.close();

    const during = await db.openStore({ secret: current, previousSecrets: [oldSecret] });
    expect(await during.get(GUILD_A)).toEqual(sampleKey());
    await during.set(GUILD_B, sampleKey(canaryKey('B')));
    expect(await during.audit()).toMatchObject({ total: 2, current: 1, previous: 1 });
  });

  keysTest('refuses an unknown record version and a corrupt envelope without quoting it', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret, cacheSize: 0 });
    const raw = await db.openRaw();
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    await raw.keyv.set(GUILD_A, { ...record, v: 2 });
    expect((await errorOf(store.get(GUILD_A))).reason).toBe('unknown_version');

    const adapter = raw.keyv.store as { set: (key: string, value: string) => Promise<unknown> };
    await adapter.set(`guild-keys:${GUILD_B}`, `{"value": "${canaryKey()}" broken`);
    const corrupt = await errorOf(store.get(GUILD_B));
    expect(corrupt.reason).toBe('malformed');
    expect(corrupt.message).not.toContain('CANARY');
    expect(String(corrupt.cause)).not.toContain('CANARY');
    expect((await store.audit()).malformed).toEqual([GUILD_A, GUILD_B].sort());
  });

  keysTest('refuses a record of several megabytes with a typed error, not a stack overflow', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret, cacheSize: 0 });
    const raw = await db.openRaw();
    const record = encryptKeyRecord(sampleKey(), GUILD_A, secret);
    await raw.keyv.set(GUILD_A, { ...record, iv: 'A'.repeat(5_000_000) });
    const error = await errorOf(store.get(GUILD_A));
    expect(error.reason).toBe('malformed');
    expect(error.message).not.toMatch(/call stack/);
  });
});

