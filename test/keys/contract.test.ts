/**
 * The key-store contract, run against every backend: what the bot relies on must not depend on
 * where DATABASE_URL points.
 */
import { afterEach, expect, test } from 'vitest';
import { KeyStore } from '../../src/keys/store.js';
import { rotateKeys } from '../../src/keys/rotate.js';
import { freePort } from '@feedbot/playground';
import { BACKENDS, describeBackends, SHARED_BACKENDS } from './backends.js';
import { capturingLogger, canaryKey, errorOf, GUILD_A, GUILD_B, newSecret, sampleKey } from './helpers.js';

const opened: KeyStore[] = [];
const open = async (opts: Parameters<typeof KeyStore.open>[0]) => {
  const store = await KeyStore.open(opts);
  opened.push(store);
  return store;
};
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((store) => store.close()));
});

describeBackends(BACKENDS, 'key store contract', (ctx) => {
  test('round-trips, reports has/delete, and stores no plaintext', async () => {
    const url = await ctx.newUrl();
    const secret = newSecret();
    const store = await open({ databaseUrl: url, secret });
    await store.set(GUILD_A, sampleKey());
    expect(await store.has(GUILD_A)).toBe(true);
    const fresh = await open({ databaseUrl: url, secret, cacheSize: 0 });
    expect(await fresh.get(GUILD_A)).toEqual(sampleKey());
    expect(await fresh.get(GUILD_B)).toBeUndefined();
    expect(await fresh.has(GUILD_B)).toBe(false);

    const raw = await ctx.openRaw(url);
    const entries = await raw.listEntries();
    expect(entries.map((entry) => entry.guildId)).toEqual([GUILD_A]);
    expect(entries[0]?.raw).not.toContain(canaryKey());

    expect(await store.delete(GUILD_A)).toBe(true);
    expect(await store.delete(GUILD_A)).toBe(false);
    expect(await fresh.get(GUILD_A)).toBeUndefined();
    expect(await store.has(GUILD_A)).toBe(false);
  });

  test('concurrent sets for one guild land in call order', async () => {
    const url = await ctx.newUrl();
    const secret = newSecret();
    const store = await open({ databaseUrl: url, secret });
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.set(GUILD_A, sampleKey(canaryKey(`C${i}`)))));
    const fresh = await open({ databaseUrl: url, secret, cacheSize: 0 });
    expect((await fresh.get(GUILD_A))?.apiKey).toBe(canaryKey('C11'));
    expect(await store.get(GUILD_A)).toEqual(await fresh.get(GUILD_A));
  });

  test('a record copied to another guild is refused as tampered_or_moved', async () => {
    const url = await ctx.newUrl();
    const secret = newSecret();
    const store = await open({ databaseUrl: url, secret, cacheSize: 0 });
    await store.set(GUILD_A, sampleKey());
    const raw = await ctx.openRaw(url);
    const entry = await raw.readEntry(GUILD_A);
    await raw.writeRaw(GUILD_B, entry?.raw ?? '');
    const error = await errorOf(store.get(GUILD_B));
    expect(error.code).toBe('unreadable');
    expect(error.reason).toBe('tampered_or_moved');
    expect(error.message).not.toContain(canaryKey());
  });

  test('rotation re-encrypts every record, is safe to re-run, and swaps only unchanged records', async () => {
    const url = await ctx.newUrl();
    const oldSecret = newSecret();
    const next = newSecret();
    const store = await open({ databaseUrl: url, secret: oldSecret });
    await store.set(GUILD_A, sampleKey(canaryKey('A')));
    await store.set(GUILD_B, sampleKey(canaryKey('B')));
    expect(await rotateKeys({ databaseUrl: url, oldSecret, newSecret: next })).toEqual({ rotated: 2, alreadyCurrent: 0, failed: [] });
    expect(await rotateKeys({ databaseUrl: url, oldSecret, newSecret: next })).toEqual({ rotated: 0, alreadyCurrent: 2, failed: [] });
    const rotated = await open({ databaseUrl: url, secret: next, cacheSize: 0 });
    expect((await rotated.get(GUILD_B))?.apiKey).toBe(canaryKey('B'));
    expect(await rotated.audit()).toMatchObject({ total: 2, current: 2 });

    const raw = await ctx.openRaw(url);
    const before = await raw.readEntry(GUILD_A);
    await rotated.set(GUILD_A, sampleKey(canaryKey('A2')));
    expect(await raw.replaceIf(GUILD_A, before?.raw ?? '', before?.record)).toBe(false);
    expect((await rotated.get(GUILD_A))?.apiKey).toBe(canaryKey('A2'));
  });

  test('namespaces are isolated, and audit counts by secret', async () => {
    const url = await ctx.newUrl();
    const secret = newSecret();
    const previous = newSecret();
    const main = await open({ databaseUrl: url, secret });
    const other = await open({ databaseUrl: url, secret, namespace: 'other-keys' });
    await other.set(GUILD_A, sampleKey(canaryKey('O')));
    expect(await main.get(GUILD_A)).toBeUndefined();
    const old = await open({ databaseUrl: url, secret: previous });
    await old.set(GUILD_B, sampleKey());
    await main.set(GUILD_A, sampleKey());
    const both = await open({ databaseUrl: url, secret, previousSecrets: [previous], cacheSize: 0 });
    expect(await both.audit()).toEqual({ total: 2, current: 1, previous: 1, unknownSecret: [], malformed: [] });
    expect((await other.get(GUILD_A))?.apiKey).toBe(canaryKey('O'));
    await main.ping();
  });
});

describeBackends(SHARED_BACKENDS, 'key store on a server that does not answer', (ctx) => {
  test('open fails with a storage error that names no password', async () => {
    const base = new URL(ctx.serverUrl());
    const password = decodeURIComponent(base.password);
    base.port = String(await freePort());
    base.pathname = ctx.kind === 'postgres' ? '/nowhere' : '/1';
    const { logger, lines } = capturingLogger();
    const error = await errorOf(KeyStore.open({ databaseUrl: base.toString(), secret: newSecret(), logger }));
    expect(error.code).toBe('storage');
    expect(error.message).not.toContain(password);
    expect(lines.join('\n')).not.toContain(password);
  });

  test('a store whose server stops answers storage errors without the password', async () => {
    const server = await ctx.startServer();
    try {
      const url = await server.newDatabase();
      const password = decodeURIComponent(new URL(url).password);
      const { logger, lines } = capturingLogger();
      const store = await open({ databaseUrl: url, secret: newSecret(), logger, cacheSize: 0 });
      await store.set(GUILD_A, sampleKey());
      await server.stop();
      for (const attempt of [() => store.get(GUILD_A), () => store.set(GUILD_B, sampleKey()), () => store.ping()]) {
        const error = await errorOf(attempt());
        expect(error.code).toBe('storage');
        expect(error.message).not.toContain(password);
      }
      expect(lines.join('\n')).not.toContain(password);
    } finally {
      await server.stop().catch(() => undefined);
    }
  });
});
