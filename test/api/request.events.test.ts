/**
 * The request layer's one observer hook: an event per attempt (and per local refusal), with what
 * logs and metrics need, delivered in the async context of the call that caused it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, vi } from 'vitest';
import { RateGateRefusalError, ServerError } from '../../src/api/errors.js';
import type { ResponseEvent } from '../../src/api/response-events.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, CREATED, NEW_FEED, POSTS, STATS, rateHeaders, rejection } from './helpers.js';

const stats = { path: `${BASE_PATH}/stats`, method: 'GET' };
const connReset = () => Object.assign(new Error('reset'), { code: 'ECONNRESET' });

describe('response events', () => {
  it('one event per attempt: route, method, status, latency, attempt, remaining', async ({ client, pool, clock, events }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(41, clock.resetIn(60)) });
    await client.getStats(AUTH);
    expect(events).toEqual([
      {
        kind: 'status',
        status: 200,
        route: 'getStats',
        method: 'GET',
        attempt: 1,
        retrying: false,
        latencyMs: expect.any(Number),
        remaining: 41,
        joined: false,
      },
    ]);
    expect(events[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('a POST reports the status the API really sent (201)', async ({ client, pool, events }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
    await client.createFeed(AUTH, NEW_FEED);
    expect(events).toMatchObject([{ kind: 'status', status: 201, route: 'createFeed', method: 'POST', remaining: null }]);
  });

  it('a retried GET reports every attempt, and which ones are followed by a retry', async ({ client, pool, agent, events }) => {
    pool.intercept(stats).reply(503, {}).times(2);
    pool.intercept(stats).reply(200, STATS);
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
    expect(callCount(agent)).toBe(3);
    expect(events.map((e) => [e.attempt, e.kind === 'status' ? e.status : e.kind, e.retrying])).toEqual([
      [1, 503, true],
      [2, 503, true],
      [3, 200, false],
    ]);
  });

  it('the last attempt of a failed call says no retry follows', async ({ client, pool, events }) => {
    pool.intercept(stats).reply(502, {}).times(3);
    expect(await rejection(client.getStats(AUTH))).toBeInstanceOf(ServerError);
    expect(events.map((e) => e.retrying)).toEqual([true, true, false]);
  });

  it('transport failures report their kind instead of a status', async ({ makeClient, pool }) => {
    const client = makeClient({ timeoutMs: 30, maxRetries: 1 });
    const events: ResponseEvent[] = [];
    client.onResponse((e) => events.push(e));
    pool.intercept(stats).replyWithError(connReset());
    pool.intercept(stats).reply(200, STATS).delay(500);
    await rejection(client.getStats(AUTH));
    expect(events).toMatchObject([
      { kind: 'connection', systemCode: 'ECONNRESET', attempt: 1, retrying: true },
      { kind: 'timeout', timeoutMs: 30, attempt: 2, retrying: false },
    ]);
    expect(events.some((e) => 'status' in e)).toBe(false);
  });

  it('the debug line names a transport failure: its system code, a time-out’s length; never the key', async ({ makeClient, pool, log }) => {
    const client = makeClient({ timeoutMs: 30, maxRetries: 1, logger: log.logger });
    pool.intercept(stats).replyWithError(connReset());
    pool.intercept(stats).reply(200, STATS).delay(500);
    await rejection(client.getStats(AUTH));
    const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toMatchObject([
      { msg: 'feed api request', route: 'getStats', status: 'connection', cause: 'ECONNRESET', attempt: 1 },
      { msg: 'feed api request', route: 'getStats', status: 'timeout', timeoutMs: 30, attempt: 2 },
    ]);
    expect(log.lines.join('\n')).not.toContain(AUTH.apiKey);
  });

  it('a local refusal is its own event, with the reset time, and throws RateGateRefusalError', async ({ client, pool, agent, clock, events }) => {
    pool.intercept(stats).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(30)) });
    await client.getStats(AUTH);
    const err = await rejection(client.getStats(AUTH));
    expect(err).toBeInstanceOf(RateGateRefusalError);
    expect(callCount(agent)).toBe(1);
    expect(events[1]).toEqual({
      kind: 'refused',
      resetAt: (err as RateGateRefusalError).resetAt,
      route: 'getStats',
      method: 'GET',
      attempt: 1,
      retrying: false,
      latencyMs: 0,
      remaining: 0,
      joined: false,
    });
  });

  it('a retry refused by the gate: the answer that was sent, then the refusal', async ({ client, pool, clock, events }) => {
    pool.intercept(stats).reply(503, {}, { headers: rateHeaders(0, clock.resetIn(60)) });
    expect(await rejection(client.getStats(AUTH))).toBeInstanceOf(ServerError);
    expect(events.map((e) => [e.attempt, e.kind, e.retrying])).toEqual([
      [1, 'status', true],
      [2, 'refused', false],
    ]);
  });

  it('a caller joining an identical GET in flight gets its events replayed, marked joined', async ({ client, pool, agent, events }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds/3/posts`, method: 'GET' }).reply(200, POSTS).delay(20);
    await Promise.all([client.listPosts(AUTH, 3), client.listPosts(AUTH, 3)]);
    expect(callCount(agent)).toBe(1);
    expect(events.map((e) => [e.kind === 'status' && e.status, e.joined])).toEqual([
      [200, false],
      [200, true],
    ]);
  });

  it('events reach listeners in the async context of the call (the joiner’s own, for a joined GET)', async ({ client, pool }) => {
    const scope = new AsyncLocalStorage<string>();
    const seen: Array<[string | undefined, boolean]> = [];
    client.onResponse((e) => seen.push([scope.getStore(), e.joined]));
    pool.intercept({ path: `${BASE_PATH}/feeds/3/posts`, method: 'GET' }).reply(200, POSTS).delay(20);
    await Promise.all([scope.run('first', () => client.listPosts(AUTH, 3)), scope.run('second', () => client.listPosts(AUTH, 3))]);
    expect(seen).toEqual([
      ['first', false],
      ['second', true],
    ]);
  });

  it('unsubscribing stops the events; a throwing listener changes nothing for the call or the others', async ({ client, pool }) => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const a: ResponseEvent[] = [];
    const b: ResponseEvent[] = [];
    const offA = client.onResponse((e) => a.push(e));
    client.onResponse(() => {
      throw new Error('broken observer');
    });
    client.onResponse((e) => b.push(e));
    pool.intercept(stats).reply(200, STATS).times(2);
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
    offA();
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('broken observer'));
  });

  it('the debug log is a subscriber: a line per attempt and per refusal, none for a joined GET', async ({ makeClient, pool, clock, log }) => {
    const client = makeClient({ logger: log.logger });
    pool.intercept({ path: `${BASE_PATH}/feeds/3/posts`, method: 'GET' }).reply(200, POSTS, { headers: rateHeaders(0, clock.resetIn(30)) }).delay(20);
    await Promise.all([client.listPosts(AUTH, 3), client.listPosts(AUTH, 3)]);
    await rejection(client.getStats(AUTH));
    const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toMatchObject([
      { msg: 'feed api request', route: 'listPosts', method: 'GET', status: 200, attempt: 1, remaining: 0 },
      { msg: 'feed api request refused by rate gate', route: 'getStats', attempt: 1, local: true },
    ]);
    expect(lines).toHaveLength(2);
  });
});
