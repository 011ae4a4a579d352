import { describe, expect } from 'vitest';
import type { Interceptable } from 'undici';
import { NotFoundError, RateGateRefusalError, ServerError } from '../../src/api/errors.js';
import { FeedsCache } from '../../src/api/feeds-cache.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, Clock, CREATED, DELETED, FEED_LIST, GUILD, KEY, NEW_FEED, POSTS, rateHeaders, rejection } from './helpers.js';
import { describeStates } from './shared-redis.js';

const feeds = (pool: Interceptable) => pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' });
const LIST_2 = { ...FEED_LIST, feeds: [...FEED_LIST.feeds, { ...FEED_LIST.feeds[0], id: 7 }], total: 2 };

describeStates('feed list cache (autocomplete)', (kind) => {
  it.override({ stateKind: kind });

  it('cachedFeeds is empty before any list and never sends', async ({ client, agent }) => {
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
    expect(callCount(agent)).toBe(0);
  });

  it('listFeeds fills the guild cache; later reads are served from it', async ({ client, pool, agent }) => {
    feeds(pool).reply(200, FEED_LIST);
    await client.listFeeds(AUTH);
    expect(await client.cachedFeeds(GUILD)).toEqual(FEED_LIST);
    expect(await client.cachedFeeds('1100000000000000999')).toBeUndefined();
    await expect(client.listFeeds(AUTH)).resolves.toEqual(FEED_LIST);
    expect(callCount(agent)).toBe(1);
  });

  it('fresh: true skips the cached value and refills it', async ({ client, pool, agent }) => {
    feeds(pool).reply(200, FEED_LIST);
    feeds(pool).reply(200, LIST_2);
    await client.listFeeds(AUTH);
    await expect(client.listFeeds(AUTH, { fresh: true })).resolves.toEqual(LIST_2);
    expect(await client.cachedFeeds(GUILD)).toEqual(LIST_2);
    expect(callCount(agent)).toBe(2);
  });

  it('expires after the TTL', async ({ client, pool, agent, clock }) => {
    feeds(pool).reply(200, FEED_LIST);
    await client.listFeeds(AUTH);
    clock.advance(29_999);
    expect(await client.cachedFeeds(GUILD)).toEqual(FEED_LIST);
    clock.advance(1);
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
    feeds(pool).reply(200, FEED_LIST);
    await client.listFeeds(AUTH);
    expect(callCount(agent)).toBe(2);
  });

  it('honours a custom TTL, and 0 disables caching', async ({ pool, clock, makeClient }) => {
    const short = makeClient({ feedsCacheTtlMs: 1000 });
    feeds(pool).reply(200, FEED_LIST);
    await short.listFeeds(AUTH);
    clock.advance(1000);
    expect(await short.cachedFeeds(GUILD)).toBeUndefined();

    const none = makeClient({ feedsCacheTtlMs: 0 });
    feeds(pool).reply(200, FEED_LIST);
    await none.listFeeds(AUTH);
    expect(await none.cachedFeeds(GUILD)).toBeUndefined();
  });

  it('createFeed invalidates the guild cache', async ({ client, pool }) => {
    feeds(pool).reply(200, FEED_LIST);
    await client.listFeeds(AUTH);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
    await client.createFeed(AUTH, NEW_FEED);
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
  });

  it('deleteFeed invalidates the guild cache, also on 404 and on a server error', async ({ client, pool }) => {
    const del = () => pool.intercept({ path: `${BASE_PATH}/feeds/7`, method: 'DELETE' });
    const cases: Array<[() => void, (r: unknown) => boolean]> = [
      [() => del().reply(200, DELETED), (r) => JSON.stringify(r) === JSON.stringify(DELETED)],
      [() => del().reply(404, {}), (r) => r instanceof NotFoundError],
      [() => del().reply(500, {}).times(3), (r) => r instanceof ServerError],
    ];
    for (const [reply, expected] of cases) {
      feeds(pool).reply(200, FEED_LIST);
      await client.listFeeds(AUTH, { fresh: true });
      expect(await client.cachedFeeds(GUILD)).toEqual(FEED_LIST);
      reply();
      const r = await client.deleteFeed(AUTH, 7).catch((e: unknown) => e);
      expect(expected(r)).toBe(true);
      expect(await client.cachedFeeds(GUILD)).toBeUndefined();
    }
  });

  it('a create refused locally (nothing sent) keeps the cache', async ({ client, pool, clock }) => {
    feeds(pool).reply(200, FEED_LIST, { headers: rateHeaders(0, clock.resetIn(30)) });
    await client.listFeeds(AUTH);
    expect(await rejection(client.createFeed(AUTH, NEW_FEED))).toBeInstanceOf(RateGateRefusalError);
    expect(await client.cachedFeeds(GUILD)).toEqual(FEED_LIST);
  });

  it('a list in flight during a create does not store its stale answer', async ({ client, pool, clock }) => {
    // A known budget first, so the create is not held behind the list by the unknown-state rule.
    pool.intercept({ path: `${BASE_PATH}/feeds/1/posts`, method: 'GET' }).reply(200, POSTS, {
      headers: rateHeaders(50, clock.resetIn(60)),
    });
    await client.listPosts(AUTH, 1);
    feeds(pool).reply(200, FEED_LIST).delay(50);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
    let listDone = false;
    const stale = client.listFeeds(AUTH).finally(() => (listDone = true));
    await client.createFeed(AUTH, NEW_FEED);
    expect(listDone).toBe(false); // the create really finished while the list was in flight
    await expect(stale).resolves.toEqual(FEED_LIST);
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
  });

  it('a list asked for after a create does not join the older request in flight', async ({ client, pool, clock }) => {
    // Teach the gate a budget first so requests run concurrently.
    pool.intercept({ path: `${BASE_PATH}/feeds/1/posts`, method: 'GET' }).reply(200, POSTS, {
      headers: rateHeaders(50, clock.resetIn(60)),
    });
    await client.listPosts(AUTH, 1);
    feeds(pool).reply(200, FEED_LIST).delay(50);
    feeds(pool).reply(200, LIST_2);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
    const before = client.listFeeds(AUTH);
    await client.createFeed(AUTH, NEW_FEED);
    const after = client.listFeeds(AUTH);
    await expect(before).resolves.toEqual(FEED_LIST);
    await expect(after).resolves.toEqual(LIST_2);
    expect(await client.cachedFeeds(GUILD)).toEqual(LIST_2);
  });

  it('a cached list fetched with another key is not served to a new key', async ({ client, pool, agent }) => {
    feeds(pool).reply(200, FEED_LIST);
    await client.listFeeds(AUTH);
    feeds(pool).reply(200, LIST_2);
    await expect(client.listFeeds({ apiKey: 'replacement-key-456', guildId: GUILD })).resolves.toEqual(LIST_2);
    expect(callCount(agent)).toBe(2);
  });

  it('forgetKey drops the lists that key fetched', async ({ client, pool }) => {
    feeds(pool).reply(200, FEED_LIST);
    await client.listFeeds(AUTH);
    await client.forgetKey(KEY);
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
  });

  it('a failed list leaves the cache empty', async ({ client, pool }) => {
    feeds(pool).reply(403, {});
    await expect(client.listFeeds(AUTH)).rejects.toThrow();
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
  });
});

describe('in-flight sharing of identical reads', () => {
  const posts = (pool: Interceptable, q = '') => pool.intercept({ path: `${BASE_PATH}/feeds/3/posts${q}`, method: 'GET' });

  it('two concurrent identical listPosts → one request, same answer', async ({ client, pool, agent }) => {
    posts(pool).reply(200, POSTS).delay(20);
    const [a, b] = await Promise.all([client.listPosts(AUTH, 3), client.listPosts(AUTH, 3)]);
    expect(a).toEqual(POSTS);
    expect(b).toEqual(POSTS);
    expect(callCount(agent)).toBe(1);
  });

  it('a failure is shared too, and the next call sends again', async ({ client, pool, agent }) => {
    posts(pool).reply(404, {}).delay(20);
    const results = await Promise.allSettled([client.listPosts(AUTH, 3), client.listPosts(AUTH, 3)]);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof NotFoundError)).toBe(true);
    expect(callCount(agent)).toBe(1);
    posts(pool).reply(200, POSTS);
    await expect(client.listPosts(AUTH, 3)).resolves.toEqual(POSTS);
    expect(callCount(agent)).toBe(2);
  });

  it('different queries or different keys are not shared', async ({ client, pool, agent, clock }) => {
    posts(pool).reply(200, POSTS, { headers: rateHeaders(50, clock.resetIn(60)) });
    await client.listPosts(AUTH, 3); // learn a budget so the next ones run concurrently
    posts(pool).reply(200, POSTS).delay(20);
    posts(pool, '?limite=5').reply(200, POSTS).delay(20);
    posts(pool).reply(200, POSTS).delay(20);
    await Promise.all([
      client.listPosts(AUTH, 3),
      client.listPosts(AUTH, 3, { limite: 5 }),
      client.listPosts({ apiKey: 'other-key-789', guildId: GUILD }, 3),
    ]);
    expect(callCount(agent)).toBe(4);
  });

  it('concurrent listFeeds for the same key share one request (autocomplete bursts)', async ({ client, pool, agent }) => {
    feeds(pool).reply(200, FEED_LIST).delay(20);
    const all = await Promise.all(Array.from({ length: 20 }, () => client.listFeeds(AUTH)));
    expect(all.every((x) => x.total === 1)).toBe(true);
    expect(callCount(agent)).toBe(1);
  });
});

describe('FeedsCache bounds', () => {
  it('evicts least recently used guilds beyond maxEntries', async () => {
    const c = new FeedsCache({ ttlMs: 1000, maxEntries: 2, now: new Clock().now });
    for (const g of ['a', 'b']) await c.completeFill(await c.beginFill(g, 'k'), FEED_LIST);
    expect(await c.get('a')).toBeDefined(); // touch a: b is now the oldest
    await c.completeFill(await c.beginFill('c', 'k'), FEED_LIST);
    expect(c.size).toBe(2);
    expect(await c.get('b')).toBeUndefined();
    expect(await c.get('a')).toBeDefined();
    expect(await c.get('c')).toBeDefined();
  });
});
