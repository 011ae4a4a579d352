/** The key store under concurrent writes, and its decrypted-key cache. */
import { describe, expect } from 'vitest';
import { type KeyDatabase } from '../../src/keys/sqlite.js';
import type { StoredKey } from '../../src/keys/store.js';
import { GUILD_A, GUILD_B, canaryKey, keysTest, newSecret, sampleKey , errorOf } from './helpers.js';

describe('KeyStore concurrency and cache', () => {
  keysTest('lands concurrent sets for many guilds', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret });
    const guilds = Array.from({ length: 150 }, (_, index) => String(100000000000000000n + BigInt(index)));
    await Promise.all(guilds.map((guild) => store.set(guild, sampleKey(`fk_live_key_${guild}`))));
    await store.close();

    const fresh = await db.openStore({ secret, cacheSize: 0 });
    const keys = await Promise.all(guilds.map((guild) => fresh.get(guild)));
    expect(keys.map((key) => key?.apiKey)).toEqual(guilds.map((guild) => `fk_live_key_${guild}`));
  });

  keysTest('applies writes to one guild in call order, and reads never resurrect a replaced value', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret });
    const operations: Array<Promise<unknown>> = [];
    const reads: Array<Promise<StoredKey | undefined>> = [];
    for (let index = 0; index < 59; index += 1) {
      if (index % 7 === 3) operations.push(store.delete(GUILD_A));
      else operations.push(store.set(GUILD_A, sampleKey(`fk_live_version_${index}`)));
      reads.push(store.get(GUILD_A));
    }
    await Promise.all([...operations, ...reads]);
    expect((await store.get(GUILD_A))?.apiKey).toBe('fk_live_version_58');
    const fresh = await db.openStore({ secret, cacheSize: 0 });
    expect((await fresh.get(GUILD_A))?.apiKey).toBe('fk_live_version_58');

    await Promise.all([store.delete(GUILD_A), store.get(GUILD_A)]);
    expect(await store.get(GUILD_A)).toBeUndefined();
  });

  keysTest('does not cache a value read before a write that finished while the read was in flight', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret });
    const writer = await db.openStore({ secret });
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

  keysTest('bounds the cache: evicted guilds are read from SQLite again', async ({ db }) => {
    const secret = newSecret();
    const store = await db.openStore({ secret, cacheSize: 2 });
    const raw = await db.openRaw();
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

  keysTest('expires cached keys after cacheTtlMs', async ({ db }) => {
    const store = await db.openStore({ secret: newSecret(), cacheTtlMs: 1 });
    const raw = await db.openRaw();
    await store.set(GUILD_A, sampleKey());
    await raw.keyv.delete(GUILD_A);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await store.get(GUILD_A)).toBeUndefined();
  });
});

