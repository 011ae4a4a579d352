import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/keys/database-url.js';
import { KeyStore, type StoredKey } from '../../src/keys/store.js';
import { GUILD_A, GUILD_B, capturingLogger, keysTest, newSecret, readAllFiles, sampleKey , errorOf } from './helpers.js';

describe('KeyStore basics', () => {
  keysTest('round-trips a key, and has/delete behave', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
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

  keysTest('returns copies: mutating a result does not change what the store holds', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
    await store.set(GUILD_A, sampleKey());
    const first = (await store.get(GUILD_A))!;
    first.scopes.push('stats:read');
    first.apiKey = 'changed';
    expect(await store.get(GUILD_A)).toEqual(sampleKey());
  });

  keysTest('keeps data across close and reopen, and refuses use after close', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret });
    await store.set(GUILD_A, sampleKey());
    await store.close();
    await store.close();
    expect((await errorOf(store.get(GUILD_A))).code).toBe('closed');

    const reopened = await db.openStore({ secret });
    expect(await reopened.get(GUILD_A)).toEqual(sampleKey());
  });

  keysTest('accepts a plain path; missing folders outside the working folder are refused, not created', async ({ db }) => {
    db.databaseUrl = path.join(db.dir, 'nested', 'deeper', 'keys.sqlite');
    const refused = await errorOf(db.openStore({ secret: newSecret() }));
    expect(refused.message).toMatch(/^DATABASE_URL: the folder .*nested\/deeper does not exist; create it first/);
    expect(existsSync(path.join(db.dir, 'nested'))).toBe(false);
    await mkdir(path.join(db.dir, 'nested', 'deeper'), { recursive: true });
    const store = await db.openStore({ secret: newSecret() });
    await store.set(GUILD_A, sampleKey());
    const names = (await readAllFiles(path.join(db.dir, 'nested', 'deeper'))).map((f) => f.name);
    expect(names).toContain('keys.sqlite');
  });

  keysTest('validates input and never echoes the key in the error', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
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

  keysTest('creates the database file readable by its owner only (0600)', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
    await store.set(GUILD_A, sampleKey());
    const file = parseDatabaseUrl(db.databaseUrl).file;
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  keysTest('fails to open with a typed storage error when the path is unusable', async ({ db }) => {
    await mkdir(path.join(db.dir, 'is-a-directory.sqlite'));
    db.databaseUrl = path.join(db.dir, 'is-a-directory.sqlite');
    const error = await errorOf(KeyStore.open({ databaseUrl: db.databaseUrl, secret: newSecret() }));
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

describe('KeyStore logging', () => {
  keysTest('logs what happened, and never the key', async ({ db }) => {
    const { logger, lines } = capturingLogger();
    const secret = newSecret();
    const store = await db.openStore({ secret, logger, cacheSize: 0 });
    const raw = await db.openRaw();
    await store.set(GUILD_A, sampleKey());
    await store.get(GUILD_A);
    await raw.keyv.set(GUILD_B, (await raw.readEntry(GUILD_A))!.record);
    await errorOf(store.get(GUILD_B));
    await errorOf(store.set(GUILD_A, sampleKey('fk_live_CANARY bad')));
    await store.delete(GUILD_A);
    await store.close();
    const other = await db.openStore({ secret: newSecret(), logger });
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
  keysTest('reports a failing write as a storage error instead of resolving', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret() });
    const raw = await db.openRaw();
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
  keysTest('writes files where the tests look', async ({ db }) => {
    await writeFile(path.join(db.dir, 'probe'), 'x');
    expect((await readAllFiles(db.dir)).map((file) => file.name)).toContain('probe');
  });
});
