import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encryptKeyRecord, secretKid } from '../../src/keys/crypto.js';
import { parseDatabaseUrl } from '../../src/keys/database-url.js';
import { KeyStoreError } from '../../src/keys/errors.js';
import { KeyDatabase } from '../../src/keys/sqlite.js';
import { KeyStore, type StoredKey } from '../../src/keys/store.js';
import { silentLogger } from '../../src/logger.js';
import {
  GUILD_A,
  GUILD_B,
  canaryKey,
  capturingLogger,
  makeTempDir,
  newSecret,
  readAllFiles,
  sampleKey,
} from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let databaseUrl: string;
const opened: Array<{ close: () => Promise<void> }> = [];

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  databaseUrl = `sqlite://${path.join(dir, 'feedbot.sqlite')}`;
});

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((handle) => handle.close()));
  await cleanup();
});

async function openStore(opts: Partial<Parameters<typeof KeyStore.open>[0]> & { secret: Buffer }): Promise<KeyStore> {
  const store = await KeyStore.open({ databaseUrl, ...opts });
  opened.push(store);
  return store;
}

/** A second connection to the same file, for reading and tampering with records behind the store. */
async function openRaw(): Promise<KeyDatabase> {
  const db = await KeyDatabase.open({ databaseUrl, logger: silentLogger() });
  opened.push(db);
  return db;
}

async function errorOf(promise: Promise<unknown>): Promise<KeyStoreError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(KeyStoreError);
  return error as KeyStoreError;
}

describe('KeyStore basics', () => {
  it('round-trips a key, and has/delete behave', async () => {
    const store = await openStore({ secret: newSecret() });
    expect(await store.get(GUILD_A)).toBeUndefined();
    expect(await store.has(GUILD_A)).toBe(false);
    await store.set(GUILD_A, sampleKey());
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
    expect(await store.has(GUILD_A)).toBe(true);
    expect(await store.get(GUILD_B)).toBeUndefined();
    expect(await store.delete(GUILD_A)).toBe(true);
    expect(await store.delete(GUILD_A)).toBe(false);
    expect(await store.get(GUILD_A)).toBeUndefined();
    expect(await store.has(GUILD_A)).toBe(false);
  });

  it('returns copies: mutating a result does not change what the store holds', async () => {
    const store = await openStore({ secret: newSecret() });
    await store.set(GUILD_A, sampleKey());
    const first = (await store.get(GUILD_A))!;
    first.scopes.push('stats:read');
    first.apiKey = 'changed';
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
  });

  it('keeps data across close and reopen, and refuses use after close', async () => {
    const secret = newSecret();
    const store = await openStore({ secret });
    await store.set(GUILD_A, sampleKey());
    await store.close();
    await store.close();
    expect((await errorOf(store.get(GUILD_A))).code).toBe('closed');

    const reopened = await openStore({ secret });
    expect(await reopened.get(GUILD_A)).toEqual(sampleKey());
  });

  it('accepts a plain path, creating missing parent directories', async () => {
    databaseUrl = path.join(dir, 'nested', 'deeper', 'keys.sqlite');
    const store = await openStore({ secret: newSecret() });
    await store.set(GUILD_A, sampleKey());
    const names = (await readAllFiles(path.join(dir, 'nested', 'deeper'))).map((f) => f.name);
    expect(names).toContain('keys.sqlite');
  });

  it('validates input and never echoes the key in the error', async () => {
    const store = await openStore({ secret: newSecret() });
    const badKey = 'fk_live_CANARY with spaces';
    const invalid = await errorOf(store.set(GUILD_A, sampleKey(badKey)));
    expect(invalid.code).toBe('invalid_input');
    expect(invalid.message).toContain('apiKey');
    expect(invalid.message).not.toContain('CANARY');
    expect((await errorOf(store.set('12:34', sampleKey()))).code).toBe('invalid_input');
    expect((await errorOf(store.get('guild-keys:1'))).code).toBe('invalid_input');
    expect(
      (await errorOf(store.set(GUILD_A, { ...sampleKey(), scopes: ['everything'] } as unknown as StoredKey))).code,
    ).toBe('invalid_input');
    expect(await store.has(GUILD_A)).toBe(false);
  });

  it('fails to open with a typed storage error when the path is unusable', async () => {
    await mkdir(path.join(dir, 'is-a-directory.sqlite'));
    databaseUrl = path.join(dir, 'is-a-directory.sqlite');
    const error = await errorOf(KeyStore.open({ databaseUrl, secret: newSecret() }));
    expect(error.code).toBe('storage');
  });
});

describe('DATABASE_URL parsing', () => {
  it('accepts sqlite:// relative and absolute paths and plain paths', () => {
    expect(parseDatabaseUrl('sqlite://./data/feedbot.sqlite', '/srv/bot').file).toBe('/srv/bot/data/feedbot.sqlite');
    expect(parseDatabaseUrl('sqlite:///var/lib/feedbot.sqlite', '/srv/bot').file).toBe('/var/lib/feedbot.sqlite');
    expect(parseDatabaseUrl('data/x.sqlite', '/srv/bot')).toEqual({
      file: '/srv/bot/data/x.sqlite',
      uri: 'sqlite:///srv/bot/data/x.sqlite',
    });
    expect(parseDatabaseUrl('sqlite://:memory:').file).toBe(':memory:');
  });

  it('rejects other databases without echoing their URL (it may hold a password)', () => {
    expect(() => parseDatabaseUrl('postgres://bot:hunter2@db/feedbot')).toThrow(/"postgres" is not supported/);
    try {
      parseDatabaseUrl('postgres://bot:hunter2@db/feedbot');
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
    expect(() => parseDatabaseUrl('sqlite://')).toThrow();
    expect(() => parseDatabaseUrl('sqlite://file.sqlite?mode=ro')).toThrow();
  });
});

describe('KeyStore encryption at rest', () => {
  it('the SQLite file and its journal never hold the plaintext key', async () => {
    const store = await openStore({ secret: newSecret() });
    const snapshots: Array<Array<{ name: string; bytes: Buffer }>> = [];
    let writing = true;
    // Sample the directory while writes are in flight, to catch the rollback journal while it exists.
    const sampler = (async () => {
      while (writing) {
        snapshots.push(await readAllFiles(dir));
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
    snapshots.push(await readAllFiles(dir));

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

  it('holds no plaintext in the -wal file either, if the shared file is switched to WAL', async () => {
    const raw = await openRaw();
    await (raw.keyv.store as { query: (sql: string) => Promise<unknown> }).query('PRAGMA journal_mode = WAL');
    const store = await openStore({ secret: newSecret() });
    for (let index = 0; index < 20; index += 1) await store.set(GUILD_A, sampleKey());
    const files = await readAllFiles(dir);
    const wal = files.find((file) => file.name === 'feedbot.sqlite-wal');
    expect(wal?.bytes.includes(`guild-keys:${GUILD_A}`)).toBe(true);
    for (const file of files) expect(file.bytes.includes('CANARY'), file.name).toBe(false);
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
  });

  it('writes a fresh IV and ciphertext each time the same key is stored', async () => {
    const store = await openStore({ secret: newSecret() });
    const raw = await openRaw();
    await store.set(GUILD_A, sampleKey());
    const first = (await raw.readEntry(GUILD_A))!.record as { iv: string; ct: string };
    await store.set(GUILD_A, sampleKey());
    const second = (await raw.readEntry(GUILD_A))!.record as { iv: string; ct: string };
    expect(second.iv).not.toBe(first.iv);
    expect(second.ct).not.toBe(first.ct);
  });

  it('refuses a tampered record with a typed error', async () => {
    const store = await openStore({ secret: newSecret(), cacheSize: 0 });
    const raw = await openRaw();
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

  it('refuses a record copied into another guild', async () => {
    const store = await openStore({ secret: newSecret(), cacheSize: 0 });
    const raw = await openRaw();
    await store.set(GUILD_A, sampleKey());
    await raw.keyv.set(GUILD_B, (await raw.readEntry(GUILD_A))!.record);
    expect((await errorOf(store.get(GUILD_B))).reason).toBe('tampered_or_moved');
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
  });

  it('refuses records under an unconfigured secret, and reads them when given as previous secret', async () => {
    const oldSecret = newSecret();
    const current = newSecret();
    const before = await openStore({ secret: oldSecret });
    await before.set(GUILD_A, sampleKey());
    await before.close();

    const wrong = await openStore({ secret: current });
    const error = await errorOf(wrong.get(GUILD_A));
    expect(error.reason).toBe('wrong_secret');
    expect(error.message).toContain(secretKid(oldSecret));
    expect(await wrong.audit()).toEqual({ total: 1, current: 0, previous: 0, unknownSecret: [GUILD_A], malformed: [] });
    await wrong.close();

    const during = await openStore({ secret: current, previousSecrets: [oldSecret] });
    expect(await during.get(GUILD_A)).toEqual(sampleKey());
    await during.set(GUILD_B, sampleKey(canaryKey('B')));
    expect(await during.audit()).toMatchObject({ total: 2, current: 1, previous: 1 });
  });

  it('refuses an unknown record version and a corrupt envelope without quoting it', async () => {
    const secret = newSecret();
    const store = await openStore({ secret, cacheSize: 0 });
    const raw = await openRaw();
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
});

describe('KeyStore concurrency and cache', () => {
  it('lands concurrent sets for many guilds', async () => {
    const secret = newSecret();
    const store = await openStore({ secret });
    const guilds = Array.from({ length: 150 }, (_, index) => String(100000000000000000n + BigInt(index)));
    await Promise.all(guilds.map((guild) => store.set(guild, sampleKey(`fk_live_key_${guild}`))));
    await store.close();

    const fresh = await openStore({ secret, cacheSize: 0 });
    const keys = await Promise.all(guilds.map((guild) => fresh.get(guild)));
    expect(keys.map((key) => key?.apiKey)).toEqual(guilds.map((guild) => `fk_live_key_${guild}`));
  });

  it('applies writes to one guild in call order, and reads never resurrect a replaced value', async () => {
    const secret = newSecret();
    const store = await openStore({ secret });
    const operations: Array<Promise<unknown>> = [];
    const reads: Array<Promise<StoredKey | undefined>> = [];
    for (let index = 0; index < 59; index += 1) {
      if (index % 7 === 3) operations.push(store.delete(GUILD_A));
      else operations.push(store.set(GUILD_A, sampleKey(`fk_live_version_${index}`)));
      reads.push(store.get(GUILD_A));
    }
    await Promise.all([...operations, ...reads]);
    expect((await store.get(GUILD_A))?.apiKey).toBe('fk_live_version_58');
    const fresh = await openStore({ secret, cacheSize: 0 });
    expect((await fresh.get(GUILD_A))?.apiKey).toBe('fk_live_version_58');

    await Promise.all([store.delete(GUILD_A), store.get(GUILD_A)]);
    expect(await store.get(GUILD_A)).toBeUndefined();
  });

  it('does not cache a value read before a write that finished while the read was in flight', async () => {
    const secret = newSecret();
    const store = await openStore({ secret });
    const writer = await openStore({ secret });
    await writer.set(GUILD_A, sampleKey('fk_live_version_1'));
    // Hold the store's next SQLite read until a set() has completed, the worst interleaving.
    const keyv = (store as unknown as { db: KeyDatabase }).db.keyv;
    const realGet = keyv.get.bind(keyv);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let readStarted!: () => void;
    const started = new Promise<void>((resolve) => (readStarted = resolve));
    keyv.get = (async (key: string) => {
      const value = await realGet(key);
      readStarted();
      await gate;
      return value;
    }) as typeof keyv.get;

    const slowRead = store.get(GUILD_A);
    await started;
    await store.set(GUILD_A, sampleKey('fk_live_version_2'));
    release();
    expect((await slowRead)?.apiKey).toBe('fk_live_version_1');
    keyv.get = realGet as typeof keyv.get;
    expect((await store.get(GUILD_A))?.apiKey).toBe('fk_live_version_2');
  });

  it('bounds the cache: evicted guilds are read from SQLite again', async () => {
    const secret = newSecret();
    const store = await openStore({ secret, cacheSize: 2 });
    const raw = await openRaw();
    const guildC = '333333333333333333';
    await store.set(GUILD_A, sampleKey(canaryKey('A')));
    await store.set(GUILD_B, sampleKey(canaryKey('B')));
    await store.set(guildC, sampleKey(canaryKey('C')));
    // Swap A's and C's records behind the store's back: only a read that reaches SQLite notices.
    const recordA = (await raw.readEntry(GUILD_A))!.record;
    const recordC = (await raw.readEntry(guildC))!.record;
    await raw.keyv.set(GUILD_A, recordC);
    await raw.keyv.set(guildC, recordA);
    expect((await store.get(guildC))?.apiKey).toBe(canaryKey('C'));
    expect((await errorOf(store.get(GUILD_A))).reason).toBe('tampered_or_moved');
  });

  it('expires cached keys after cacheTtlMs', async () => {
    const store = await openStore({ secret: newSecret(), cacheTtlMs: 1 });
    const raw = await openRaw();
    await store.set(GUILD_A, sampleKey());
    await raw.keyv.delete(GUILD_A);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await store.get(GUILD_A)).toBeUndefined();
  });
});

describe('KeyStore logging', () => {
  it('logs what happened, and never the key', async () => {
    const { logger, lines } = capturingLogger();
    const secret = newSecret();
    const store = await openStore({ secret, logger, cacheSize: 0 });
    const raw = await openRaw();
    await store.set(GUILD_A, sampleKey());
    await store.get(GUILD_A);
    await raw.keyv.set(GUILD_B, (await raw.readEntry(GUILD_A))!.record);
    await errorOf(store.get(GUILD_B));
    await errorOf(store.set(GUILD_A, sampleKey('fk_live_CANARY bad')));
    await store.delete(GUILD_A);
    await store.close();
    const other = await openStore({ secret: newSecret(), logger });
    await errorOf(other.get(GUILD_B));

    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(4);
    expect(text).toContain(GUILD_A);
    expect(text).toContain('tampered_or_moved');
    expect(text).toContain('wrong_secret');
    expect(text).not.toContain('CANARY');
    expect(text).not.toContain('9f3c1e7b5d2a4806');
    expect(text).not.toContain(secret.toString('base64'));
  });
});

describe('KeyStore storage errors', () => {
  it('reports a failing write as a storage error instead of resolving', async () => {
    const store = await openStore({ secret: newSecret() });
    const raw = await openRaw();
    // A read-only trigger makes every insert into the table fail inside SQLite.
    await (raw.keyv.store as { query: (sql: string) => Promise<unknown> }).query(
      "CREATE TRIGGER no_writes BEFORE INSERT ON keyv BEGIN SELECT RAISE(ABORT, 'read only for test'); END",
    );
    const error = await errorOf(store.set(GUILD_A, sampleKey()));
    expect(error.code).toBe('storage');
    expect(error.message).not.toContain('CANARY');
    expect(await store.has(GUILD_A)).toBe(false);
  });
});

describe('fixture sanity', () => {
  it('writes files where the tests look', async () => {
    await writeFile(path.join(dir, 'probe'), 'x');
    expect((await readAllFiles(dir)).map((file) => file.name)).toContain('probe');
  });
});
