/**
 * The in-memory read model (key identities, feed lists): what it keeps, and that the sandbox's
 * own writes show at once, through the store and over HTTPS. Commits by other connections and
 * processes: commit-watch.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ReadCache } from '../src/read-cache.js';
import type { FeedRecord, KeyIdentity } from '../src/records.js';
import { SharedReading } from '../src/shared-reading.js';
import { test } from './fixtures.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody, listFeedsOverHttps } from './helpers.js';

const NOW = '2026-03-04T10:00:00.000Z';
const GUILD = '1234567890123456789';

const identity = (guildId: string, keyHash: string): KeyIdentity => ({
  guildId,
  keyHash,
  last4: 'abcd',
  scopes: ['feeds:read'],
  rateLimit: null,
  createdAt: NOW,
  plan: 'server',
});

const feed = (id: number, guildId: string): FeedRecord => ({
  id,
  guildId,
  cuenta: 'nasa',
  canalId: CHANNEL,
  estado: 'activo',
  tipos: ['post'],
  filtros: [],
  creado: NOW,
  ultimoPost: null,
});

describe('ReadCache', () => {
  it('keeps what it is given, frozen, and drops one guild or everything', () => {
    const cache = new ReadCache();
    const key = cache.putKey(cache.generation, identity('1', 'h1'));
    cache.putKey(cache.generation, identity('2', 'h2'));
    const feeds = cache.putFeeds(cache.generation, '1', [feed(1, '1')]);
    cache.putFeeds(cache.generation, '2', [feed(2, '2')]);
    expect(cache.key('h1')).toBe(key);
    expect(cache.feeds('1')).toBe(feeds);
    expect(Object.isFrozen(key) && Object.isFrozen(key.scopes)).toBe(true);
    expect(Object.isFrozen(feeds) && Object.isFrozen(feeds[0]) && Object.isFrozen(feeds[0]?.tipos)).toBe(true);

    cache.dropGuild('1');
    expect(cache.key('h1')).toBeUndefined();
    expect(cache.feeds('1')).toBeUndefined();
    expect(cache.key('h2')?.guildId).toBe('2');
    expect(cache.feeds('2')).toHaveLength(1);

    cache.clear();
    expect(cache.key('h2')).toBeUndefined();
    expect(cache.feeds('2')).toBeUndefined();
  });

  it('a new key of a server replaces the cached old one', () => {
    const cache = new ReadCache();
    cache.putKey(cache.generation, identity('1', 'old'));
    cache.putKey(cache.generation, identity('1', 'new'));
    expect(cache.key('old')).toBeUndefined();
    expect(cache.key('new')?.guildId).toBe('1');
  });

  it('does not store a fill that a drop overtook (the rows may predate the write)', () => {
    const cache = new ReadCache();
    const before = cache.generation;
    cache.dropGuild('3');
    expect(cache.putKey(before, identity('1', 'h1')).keyHash).toBe('h1');
    expect(cache.putFeeds(before, '1', [feed(1, '1')])).toHaveLength(1);
    expect(cache.key('h1')).toBeUndefined();
    expect(cache.feeds('1')).toBeUndefined();
  });
});

describe('SharedReading', () => {
  function deferredRuns() {
    const runs: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
    const reading = new SharedReading(
      () =>
        new Promise<number>((resolve, reject) => {
          runs.push({ resolve, reject });
        }),
    );
    return { runs, reading };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('never answers a caller with a run that started before it called; shares the next run among the rest', async () => {
    const { runs, reading } = deferredRuns();
    const first = reading.read();
    expect(runs).toHaveLength(1);
    const second = reading.read();
    const third = reading.read();
    await tick();
    expect(runs).toHaveLength(1); // queued behind the run in flight, not started yet
    runs[0]!.resolve(1);
    expect(await first).toBe(1);
    await tick();
    expect(runs).toHaveLength(2);
    runs[1]!.resolve(2);
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    const fourth = reading.read();
    expect(runs).toHaveLength(3);
    runs[2]!.resolve(3);
    expect(await fourth).toBe(3);
    await reading.idle();
  });

  it('a failed run fails its callers only; the queued run still starts', async () => {
    const { runs, reading } = deferredRuns();
    const first = reading.read();
    const second = reading.read();
    runs[0]!.reject(new Error('busy'));
    await expect(first).rejects.toThrow('busy');
    await tick();
    expect(runs).toHaveLength(2);
    runs[1]!.resolve(7);
    expect(await second).toBe(7);
  });
});

describe("the store's own writes", () => {
  test('show at once without any watch (an in-memory database has none)', async ({ openStore }) => {
    const store = await openStore(':memory:');
    expect(store.watchesWalIndex).toBe(false);
    await store.createServer(GUILD, 'server', NOW);
    await store.saveKey(GUILD, 'hash-1', '1111', ['feeds:read'], null, NOW);
    const created = await store.createFeed(GUILD, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: [], creado: NOW }, 50);
    if (created.kind !== 'created') throw new Error(created.kind);
    const id = created.feed.id;
    expect((await store.findKeyByHash('hash-1'))?.plan).toBe('server');
    expect((await store.listFeeds(GUILD)).map((f) => f.estado)).toEqual(['activo']);

    await store.setFeedState(GUILD, id, 'pausado');
    expect((await store.listFeeds(GUILD)).map((f) => f.estado)).toEqual(['pausado']);
    await store.insertPost({ code: 'BBBBBBBBBBB', feedId: id, guildId: GUILD, cuenta: 'nasa', tipo: 'post', caption: 'x', publicadoEn: NOW, publicadoDiscord: NOW });
    expect((await store.listFeeds(GUILD))[0]?.ultimoPost).toBe(NOW);
    await store.createFeed(GUILD, { cuenta: 'esa', canalId: CHANNEL, tipos: ['reel'], filtros: [], creado: NOW }, 50);
    expect(await store.listFeeds(GUILD)).toHaveLength(2);
    await store.deleteFeed(GUILD, id);
    expect((await store.listFeeds(GUILD)).map((f) => f.cuenta)).toEqual(['esa']);

    await store.setPlan(GUILD, 'free');
    expect((await store.findKeyByHash('hash-1'))?.plan).toBe('free');
    await store.saveKey(GUILD, 'hash-2', '2222', [], null, NOW);
    expect(await store.findKeyByHash('hash-1')).toBeUndefined();
    expect((await store.findKeyByHash('hash-2'))?.scopes).toEqual([]);
    await store.deleteKey(GUILD);
    expect(await store.findKeyByHash('hash-2')).toBeUndefined();
  });
});

describe('GET /feeds follows writes at once', () => {
  test('through the API, the admin and the simulator', async ({ startSandbox }) => {
    const sb = await startSandbox({ rateLimit: { limit: 1000 } });
    const list = (key: string) => listFeedsOverHttps(sb, key);
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    expect(await list(key)).toEqual([]);
    expect(await list(key)).toEqual([]);

    const created = await sb.call('POST', '/feeds', { key, body: { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] } });
    expect(created.status).toBe(201);
    const id = (created.json as { id: number }).id;
    expect((await list(key)).map((f) => f.id)).toEqual([id]);

    await sb.admin.pauseFeed(guildId, id);
    expect((await list(key))[0]?.estado).toBe('pausado');
    await sb.admin.resumeFeed(guildId, id);
    expect((await list(key))[0]?.estado).toBe('activo');

    const [post] = await sb.admin.simulateTick({ everyFeed: true });
    expect((await list(key))[0]?.ultimoPost).toBe(post?.publicadoDiscord);

    expect((await sb.call('DELETE', `/feeds/${id}`, { key })).status).toBe(200);
    expect(await list(key)).toEqual([]);

    const regenerated = await sb.admin.generateKey(guildId, ['feeds:read']);
    expectErrorBody(await sb.call('GET', '/feeds', { key }), 'invalid_api_key');
    expect(await list(regenerated)).toEqual([]);
    await sb.admin.setPlan(guildId, 'free');
    expectErrorBody(await sb.call('GET', '/feeds', { key: regenerated }), 'plan_required');
  });
});
