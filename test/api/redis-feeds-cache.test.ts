/**
 * What only the shared feeds cache does: replicas (one client and one Redis connection each, one
 * key space) answer each other's autocomplete from one upstream request, wait for a fill another
 * replica has in flight instead of sending their own, and cancel each other's fills when a feed
 * changes. A Redis that stops answering turns the cache into misses, logged once.
 */
import { describe, expect } from 'vitest';
import type { Interceptable } from 'undici';
import type { FeedApiClient } from '../../src/api/client.js';
import type { CacheLookup } from '../../src/api/feeds-cache.js';
import { RedisLink, lua } from '../../src/replicas/redis-link.js';
import { RedisSharedState } from '../../src/replicas/redis-state.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, CREATED, FEED_LIST, GUILD, KEY, NEW_FEED, captureLogger } from './helpers.js';
import { redisMissing, type RedisServerFixture } from './shared-redis.js';

const feeds = (pool: Interceptable) => pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(redisMissing !== undefined)('feeds cache shared through Redis', () => {
  it.override({ clientOptions: { maxRetries: 0 } });

  /** `n` replicas: clients with a connection each, on one key space. */
  async function replicas(n: number, redis: RedisServerFixture, makeClient: (extra?: object) => FeedApiClient): Promise<FeedApiClient[]> {
    const namespace = redis.namespace();
    const links = await Promise.all(Array.from({ length: n }, () => redis.link()));
    return links.map((link) => makeClient({ sharedState: new RedisSharedState(link, namespace) }));
  }

  it("a list one replica fetched answers the others' autocomplete and lists: one upstream request", async ({ redis, makeClient, pool, agent }) => {
    const [a, b, c] = await replicas(3, redis, makeClient);
    const lookups: CacheLookup[] = [];
    b!.onCacheLookup((l) => lookups.push(l));
    feeds(pool).reply(200, FEED_LIST);
    await a!.listFeeds(AUTH);
    expect(await b!.cachedFeeds(GUILD)).toEqual(FEED_LIST);
    expect(await c!.listFeeds(AUTH)).toEqual(FEED_LIST);
    expect(callCount(agent)).toBe(1);
    expect(lookups).toEqual([{ use: 'autocomplete', hit: true }]); // lookups are still reported
  });

  it('a replica that misses while another fetches the same list waits for that answer instead of sending', async ({ redis, makeClient, pool, agent }) => {
    const [a, b] = await replicas(2, redis, makeClient);
    feeds(pool).reply(200, FEED_LIST).delay(100);
    const first = a!.listFeeds(AUTH);
    await pause(20); // a's fill has begun
    const second = b!.listFeeds(AUTH);
    expect(await Promise.all([first, second])).toEqual([FEED_LIST, FEED_LIST]);
    expect(callCount(agent)).toBe(1);
  });

  it("one replica's concurrent lists share its own request: its lease does not make it wait", async ({ redis, makeClient, pool, agent }) => {
    const [a] = await replicas(1, redis, makeClient);
    feeds(pool).reply(200, FEED_LIST).delay(20);
    const started = performance.now();
    const all = await Promise.all(Array.from({ length: 20 }, () => a!.listFeeds(AUTH)));
    expect(all.every((x) => x.total === 1)).toBe(true);
    expect(callCount(agent)).toBe(1);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('a fill that failed on one replica lets the replica waiting for it send its own request', async ({ redis, makeClient, pool, agent }) => {
    const [a, b] = await replicas(2, redis, makeClient);
    feeds(pool).reply(503, {}).delay(60);
    feeds(pool).reply(200, FEED_LIST);
    const failed = a!.listFeeds(AUTH).catch((e: unknown) => e);
    await pause(20);
    expect(await b!.listFeeds(AUTH)).toEqual(FEED_LIST);
    expect(await failed).toMatchObject({ status: 503 });
    expect(callCount(agent)).toBe(2);
  });

  it('a feed created through one replica cancels the fill another has in flight, and empties the cache for all', async ({ redis, makeClient, pool }) => {
    const [a, b] = await replicas(2, redis, makeClient);
    feeds(pool).reply(200, FEED_LIST).delay(80);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
    let listDone = false;
    const stale = a!.listFeeds(AUTH).finally(() => (listDone = true));
    await pause(20);
    await b!.createFeed(AUTH, NEW_FEED);
    expect(listDone).toBe(false); // the create really finished while the list was in flight
    await expect(stale).resolves.toEqual(FEED_LIST);
    expect(await a!.cachedFeeds(GUILD)).toBeUndefined();
    expect(await b!.cachedFeeds(GUILD)).toBeUndefined();
  });

  it('a key forgotten on one replica drops the lists it fetched on every replica', async ({ redis, makeClient, pool }) => {
    const [a, b] = await replicas(2, redis, makeClient);
    feeds(pool).reply(200, FEED_LIST);
    await a!.listFeeds(AUTH);
    await b!.forgetKey(KEY);
    expect(await a!.cachedFeeds(GUILD)).toBeUndefined();
  });

  it('an entry lives in Redis no longer than the cache lifetime', async ({ redis, makeClient, pool }) => {
    const namespace = redis.namespace();
    const link = await redis.link();
    const a = makeClient({ sharedState: new RedisSharedState(link, namespace), feedsCacheTtlMs: 5_000 });
    feeds(pool).reply(200, FEED_LIST);
    await a.listFeeds(AUTH);
    const ttl = (await link.run(lua(`return redis.call('PTTL', KEYS[1])`), [`${namespace}:feeds:{${GUILD}}`], [])) as number;
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it('when Redis stops answering, lists come from the API and commands go on; logged once, without the password', async ({ redis, makeClient, pool, agent }) => {
    const server = await redis.startServer();
    const { logger, lines } = captureLogger();
    const link = await RedisLink.open(`${server.url}/0`, logger);
    try {
      const a = makeClient({ sharedState: new RedisSharedState(link, redis.namespace()) });
      await server.stop();
      feeds(pool).reply(200, FEED_LIST).times(2);
      pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
      expect(await a.listFeeds(AUTH)).toEqual(FEED_LIST);
      expect(await a.cachedFeeds(GUILD)).toBeUndefined();
      await expect(a.createFeed(AUTH, NEW_FEED)).resolves.toEqual(CREATED);
      expect(await a.listFeeds(AUTH)).toEqual(FEED_LIST);
      expect(callCount(agent)).toBe(3);
      expect(lines.filter((l) => l.includes('Redis does not answer'))).toHaveLength(1);
      expect(lines.join('\n')).not.toContain('redis-secret-pw');
    } finally {
      await link.close();
    }
  });
});
