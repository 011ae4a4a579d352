import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import type { FeedApiClient } from '../../src/api/client.js';
import { RateLimitedError } from '../../src/api/errors.js';
import {
  BASE_PATH,
  Clock,
  FEED_LIST,
  GUILD,
  KEY,
  ORIGIN,
  STATS,
  callCount,
  makeClient,
  newMockAgent,
  rateHeaders,
  rejection,
} from './helpers.js';

let agent: MockAgent;
let client: FeedApiClient;
let clock: Clock;

beforeEach(() => {
  agent = newMockAgent();
  clock = new Clock();
  client = makeClient(agent, { now: clock.now, maxRetries: 0 });
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const READ = [200, 403, 401, 500] as const;
const STATS_ST = [200, 403, 500, 401] as const;
const WRITE = [400, 403, 201, 500, 401] as const;

function expectedAnswer(kind: 'get' | 'post', status: number): boolean | null {
  if (status === 403) return false;
  if (kind === 'get') return status === 200 ? true : null;
  return status === 400 ? true : null;
}

const matrix: Array<[number, number, number]> = [];
for (const r of READ) for (const s of STATS_ST) for (const w of WRITE) matrix.push([r, s, w]);

describe('probeKey: scope matrix', () => {
  it.each(matrix)('GET /feeds %i, GET /stats %i, POST /feeds {} %i', async (r, s, w) => {
    const pool = agent.get(ORIGIN);
    let postBody: unknown;
    pool
      .intercept({ path: `${BASE_PATH}/feeds`, method: 'GET', headers: { authorization: `Bearer ${KEY}` } })
      .reply(r, r === 200 ? FEED_LIST : {});
    if (r !== 401) {
      pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(s, s === 200 ? STATS : {});
      pool
        .intercept({
          path: `${BASE_PATH}/feeds`,
          method: 'POST',
          body: (b) => {
            postBody = JSON.parse(b);
            return true;
          },
        })
        .reply(w, w === 201 ? { id: 1 } : { error: { codigo: 'invalid_request', mensaje: 'x' } });
    }

    const probe = await client.probeKey(KEY);

    if (r === 401 || s === 401 || w === 401) {
      expect(probe.valid).toBe(false);
      expect(probe.scopes).toEqual({ 'feeds:read': null, 'feeds:write': null, 'stats:read': null });
      expect(probe.stats).toBeUndefined();
    } else {
      expect(probe.valid).toBe(true);
      expect(probe.scopes).toEqual({
        'feeds:read': expectedAnswer('get', r),
        'stats:read': expectedAnswer('get', s),
        'feeds:write': expectedAnswer('post', w),
      });
      if (s === 200) expect(probe.stats).toEqual(STATS);
      else expect(probe.stats).toBeUndefined();
    }
    if (r === 401) expect(callCount(agent)).toBe(1); // an invalid key is not probed further
    else expect(postBody).toEqual({}); // a body no server can create a feed from
  });
});

describe('probeKey: other cases', () => {
  it('a 200 with a body off-contract still proves the read scope', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, { feeds: 'nope' });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, { servidor: 1 });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    const probe = await client.probeKey(KEY);
    expect(probe.scopes).toEqual({ 'feeds:read': true, 'feeds:write': true, 'stats:read': true });
    expect(probe.stats).toBeUndefined();
  });

  it('time-outs and connection errors → null (could not tell)', async () => {
    const c = makeClient(agent, { now: clock.now, maxRetries: 0, timeoutMs: 30 });
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST).delay(500);
    pool
      .intercept({ path: `${BASE_PATH}/stats`, method: 'GET' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {}).delay(500);
    const probe = await c.probeKey(KEY);
    expect(probe).toEqual({ valid: true, scopes: { 'feeds:read': null, 'feeds:write': null, 'stats:read': null } });
  });

  it('an upstream 429 while probing is thrown', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST, { headers: rateHeaders(5, clock.resetIn(60)) });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(429, {}, { headers: rateHeaders(0, clock.resetIn(60)) });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    const err = (await rejection(client.probeKey(KEY))) as RateLimitedError;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.local).toBe(false);
  });

  it('probes share the rate gate: a spent window refuses locally without sending', async () => {
    agent.get(ORIGIN).intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(60)) });
    await client.getStats({ apiKey: KEY, guildId: GUILD });
    const err = (await rejection(client.probeKey(KEY))) as RateLimitedError;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.local).toBe(true);
    expect(callCount(agent)).toBe(1);
  });

  it('probing fills no feed cache', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    await client.probeKey(KEY);
    expect(client.cachedFeeds(GUILD)).toBeUndefined();
  });
});
