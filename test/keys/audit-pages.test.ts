/**
 * HTTP-mode memory must not follow the number of stored keys: read in one query, every record of
 * the namespace would leave the native memory of KeyStore.open's audit pass resident, so the audit
 * reads them a page at a time (KeyBackend.entryPages). On every backend: the pages cover the
 * namespace exactly once, never exceed their size, and the audit over several pages reports what
 * one pass over every record reports.
 */
import { afterEach, expect, test, vi } from 'vitest';
import type { KeyBackend, RawEntry } from '../../src/keys/backend.js';
import { encryptKeyRecord, secretKid } from '../../src/keys/crypto.js';
import { KeyDatabase } from '../../src/keys/sqlite.js';
import { KeyStore, type KeyStoreAudit } from '../../src/keys/store.js';
import { BACKENDS, describeBackends, type BackendKind } from './backends.js';
import { canaryKey, newSecret, sampleKey } from './helpers.js';

const opened: KeyStore[] = [];
const open = async (opts: Parameters<typeof KeyStore.open>[0]) => {
  const store = await KeyStore.open(opts);
  opened.push(store);
  return store;
};
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.allSettled(opened.splice(0).map((store) => store.close()));
});

const guild = (i: number) => String(1200000000000000000n + BigInt(i));

async function backendClass(kind: BackendKind): Promise<{ prototype: KeyBackend }> {
  if (kind === 'sqlite') return KeyDatabase;
  if (kind === 'postgres') return (await import('../../src/keys/postgres.js')).PostgresKeyBackend;
  return (await import('../../src/keys/redis.js')).RedisKeyBackend;
}

/** What the audit reports, computed in one pass over every record (the audit before paging). */
function expectedAudit(entries: RawEntry[], currentKid: string, previousKids: Set<string>): KeyStoreAudit {
  const audit: KeyStoreAudit = { total: entries.length, current: 0, previous: 0, unknownSecret: [], malformed: [] };
  for (const { guildId, record } of entries) {
    const r = record as { v?: unknown; kid?: unknown } | undefined;
    if (r?.v !== 1 || typeof r.kid !== 'string') audit.malformed.push(guildId);
    else if (r.kid === currentKid) audit.current += 1;
    else if (previousKids.has(r.kid)) audit.previous += 1;
    else audit.unknownSecret.push(guildId);
  }
  audit.malformed.sort();
  audit.unknownSecret.sort();
  return audit;
}

describeBackends(BACKENDS, 'key store audit in pages', (ctx) => {
  test('pages cover the namespace once, in pages of at most their size, and nothing of another namespace', async () => {
    const url = await ctx.newUrl();
    const secret = newSecret();
    const store = await open({ databaseUrl: url, secret });
    const other = await open({ databaseUrl: url, secret, namespace: 'guild-keys-other' });
    for (let i = 0; i < 11; i++) await store.set(guild(i), sampleKey(canaryKey(`P${i}`)));
    for (let i = 0; i < 4; i++) await other.set(guild(100 + i), sampleKey());

    const raw = await ctx.openRaw(url);
    const all = await raw.listEntries();
    expect(all).toHaveLength(11);
    for (const size of [1, 3, 11, 500]) {
      const pages: RawEntry[][] = [];
      for await (const page of raw.entryPages(size)) pages.push(page);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(size);
      if (size <= 11) expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(11 / size));
      const seen = pages.flat().sort((a, b) => (a.guildId < b.guildId ? -1 : 1));
      expect(seen).toEqual(all);
    }
    const empty = await ctx.openRaw(url, 'guild-keys-none');
    const none: RawEntry[][] = [];
    for await (const page of empty.entryPages(3)) none.push(page);
    expect(none.flat()).toEqual([]);
  });

  test('KeyStore.open audits a page at a time and reports what one pass over every record reports', async () => {
    const url = await ctx.newUrl();
    const current = newSecret();
    const previous = newSecret();
    const foreign = newSecret();
    const writer = await open({ databaseUrl: url, secret: current });
    const old = await open({ databaseUrl: url, secret: previous });
    const stranger = await open({ databaseUrl: url, secret: foreign });
    for (let i = 0; i < 7; i++) await writer.set(guild(i), sampleKey());
    for (let i = 7; i < 10; i++) await old.set(guild(i), sampleKey());
    for (let i = 10; i < 12; i++) await stranger.set(guild(i), sampleKey());
    const raw = await ctx.openRaw(url);
    // Malformed: an envelope that is not JSON, a record of an unknown version, a non-object.
    const adapter = raw.keyv.store as { set: (key: string, value: string) => Promise<unknown> };
    const key = (id: string) => (ctx.kind === 'redis' ? `guild-keys::${id}` : `guild-keys:${id}`);
    await adapter.set(key(guild(12)), '{"value": broken');
    await raw.keyv.set(guild(13), { ...encryptKeyRecord(sampleKey(), guild(13), current), v: 2 });
    await raw.keyv.set(guild(14), 'just a string');

    const expected = expectedAudit(await raw.listEntries(), secretKid(current), new Set([secretKid(previous)]));
    expect(expected).toMatchObject({ total: 15, current: 7, previous: 3 });
    expect(expected.unknownSecret).toHaveLength(2);
    expect(expected.malformed).toHaveLength(3);

    const prototype = (await backendClass(ctx.kind)).prototype;
    const original = prototype.entryPages;
    const listed = vi.spyOn(prototype, 'listEntries');
    const paged = vi.spyOn(prototype, 'entryPages');
    const sizes: number[] = [];
    paged.mockImplementation(async function* (this: KeyBackend, size: number) {
      for await (const page of original.call(this, size)) {
        sizes.push(page.length);
        yield page;
      }
    });
    const reader = await open({ databaseUrl: url, secret: current, previousSecrets: [previous], auditPageSize: 4 });
    expect(listed).not.toHaveBeenCalled();
    expect(paged).toHaveBeenCalledWith(4);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(15);
    expect(await reader.audit()).toEqual(expected);

    // The default page size gives the same report.
    const whole = await open({ databaseUrl: url, secret: current, previousSecrets: [previous] });
    expect(await whole.audit()).toEqual(expected);
  });
});
