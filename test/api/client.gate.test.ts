import { expect } from 'vitest';
import { RateGateRefusalError, RateLimitedError } from '../../src/api/errors.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, KEY, POSTS, STATS, rateHeaders, rejection, settle } from './helpers.js';
import { describeStates } from './shared-redis.js';

const stats = { path: `${BASE_PATH}/stats`, method: 'GET' };

describeStates('rate gate (per key, fed by X-RateLimit-* headers)', (kind) => {
  it.override({ stateKind: kind });

  it('a spent window refuses the next call locally, without sending', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(30)) });
    await client.getStats(AUTH);
    expect(await client.gateState(KEY)).toEqual({ remaining: 0, resetAt: new Date(Math.floor(clock.ms / 1000 + 30) * 1000) });

    const err = (await rejection(client.getStats(AUTH))) as RateGateRefusalError;
    expect(err).toBeInstanceOf(RateGateRefusalError);
    expect(err).not.toBeInstanceOf(RateLimitedError);
    expect(err).not.toHaveProperty('status'); // the API said nothing: no upstream status
    expect(err.code).toBe('rate_limited_local');
    expect(err.attempts).toBe(0);
    expect(err.resetAt.getTime()).toBe(Math.floor(clock.ms / 1000 + 30) * 1000);
    expect(callCount(agent)).toBe(1); // only the first call reached the (mock) network
  });

  it('an upstream 429 also closes the gate until its reset', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(429, {}, { headers: rateHeaders(0, clock.resetIn(20)) });
    expect(await rejection(client.getStats(AUTH))).toBeInstanceOf(RateLimitedError);
    expect(await rejection(client.getStats(AUTH))).toBeInstanceOf(RateGateRefusalError);
    expect(callCount(agent)).toBe(1);
  });

  it('a 429 closes the gate until its reset even when the window we knew ends later', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(50, clock.resetIn(60)) });
    await client.getStats(AUTH);
    // Another client of the key spent the rest; a token bucket names its next token.
    pool.intercept(stats).reply(429, {}, { headers: rateHeaders(0, clock.resetIn(3)) });
    const upstream = (await rejection(client.getStats(AUTH))) as RateLimitedError;
    expect(upstream).toBeInstanceOf(RateLimitedError);
    expect(upstream.resetAt).toEqual(new Date(clock.ms + 3000));
    const local = (await rejection(client.getStats(AUTH))) as RateGateRefusalError;
    expect(local).toBeInstanceOf(RateGateRefusalError);
    expect(local.resetAt).toEqual(new Date(clock.ms + 3000));

    clock.advance(3000);
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(99, clock.resetIn(60)) });
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
    expect(callCount(agent)).toBe(3);
  });

  it('the gate is per key: another key is not refused', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(30)) });
    await client.getStats(AUTH);
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(99, clock.resetIn(30)) });
    await expect(client.getStats({ apiKey: 'another-key-123', guildId: AUTH.guildId })).resolves.toEqual(STATS);
    expect(callCount(agent)).toBe(2);
  });

  it('reserves budget for requests in flight: 3 remaining, 10 concurrent → 3 sent, 7 refused', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(3, clock.resetIn(60)) });
    await client.getStats(AUTH);
    // Distinct paths so in-flight sharing cannot be what limits the count.
    for (let id = 1; id <= 3; id++) {
      pool
        .intercept({ path: `${BASE_PATH}/feeds/${id}/posts`, method: 'GET' })
        .reply(200, POSTS, { headers: rateHeaders(3 - id, clock.resetIn(60)) })
        .delay(20);
    }
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => settle(client.listPosts(AUTH, i + 1))));
    const sent = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok && r.error instanceof RateGateRefusalError);
    expect(sent).toHaveLength(3);
    expect(refused).toHaveLength(7);
    expect(callCount(agent)).toBe(1 + 3);
    expect((await client.gateState(KEY)).remaining).toBe(0);
  });

  it('lets requests through again once the reset time has passed', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(30)) });
    await client.getStats(AUTH);
    await expect(client.getStats(AUTH)).rejects.toBeInstanceOf(RateGateRefusalError);

    clock.advance(31_000);
    expect(await client.gateState(KEY)).toEqual({ remaining: null, resetAt: null });
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(99, clock.resetIn(60)) });
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
    expect((await client.gateState(KEY)).remaining).toBe(99);
    expect(callCount(agent)).toBe(2);
  });

  it('unknown state: a first-use burst goes out together, the rest are admitted against what it learnt', async ({ client, pool, agent, clock }) => {
    for (const id of [1, 2, 3, 4]) {
      pool
        .intercept({ path: `${BASE_PATH}/feeds/${id}/posts`, method: 'GET' })
        .reply(200, POSTS, { headers: rateHeaders(1, clock.resetIn(60)) })
        // The first answer lands alone (a shared gate learns it a round trip later).
        .delay(id === 1 ? 20 : 150);
    }
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => settle(client.listPosts(AUTH, id))));
    // Four went out before anything was known; the first answer said 1 left with 3 in flight.
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, false, false]);
    expect(callCount(agent)).toBe(4);
  });

  it('missing or malformed headers are ignored: requests keep flowing', async ({ client, pool }) => {
    pool.intercept(stats).reply(200, STATS);
    pool.intercept(stats).reply(200, STATS, {
      headers: { 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': 'soon' },
    });
    pool.intercept(stats).reply(200, STATS, {
      headers: { 'x-ratelimit-remaining': '0' }, // no reset: cannot tell when, so not trusted
    });
    pool.intercept(stats).reply(200, STATS);
    for (let i = 0; i < 4; i++) await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
    expect(await client.gateState(KEY)).toEqual({ remaining: null, resetAt: null });
  });

  it('a retry refused by the gate surfaces the original failure, not a 429', async ({ client, pool, agent, clock }) => {
    pool.intercept(stats).reply(503, { message: 'down' }, { headers: rateHeaders(0, clock.resetIn(60)) });
    const err = await rejection(client.getStats(AUTH));
    expect(err).not.toBeInstanceOf(RateLimitedError);
    expect(err).not.toBeInstanceOf(RateGateRefusalError);
    expect((err as { status: number }).status).toBe(503);
    expect(callCount(agent)).toBe(1);
  });

  it('forgetKey drops the gate state', async ({ client, pool, clock }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(30)) });
    await client.getStats(AUTH);
    await client.forgetKey(KEY);
    expect(await client.gateState(KEY)).toEqual({ remaining: null, resetAt: null });
    pool.intercept(stats).reply(200, STATS);
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
  });
});
