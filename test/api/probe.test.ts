import { describe, expect } from 'vitest';
import { RateGateRefusalError, RateLimitedError } from '../../src/api/errors.js';
import { probeKey } from '../../src/api/key-probe.js';
import { apiTest as it, callCount } from './fixtures.js';
import { BASE_PATH, FEED_LIST, GUILD, KEY, STATS, rateHeaders, rejection } from './helpers.js';

// Every client in this file sends one attempt per probe request: the matrix counts requests.
it.override({ clientOptions: { maxRetries: 0 } });

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
  it.for(matrix)('GET /feeds %i, GET /stats %i, POST /feeds {} %i', async ([r, s, w], { client, pool, agent }) => {
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

    const probe = await probeKey(client.requester, KEY);

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
      // Where the key's feeds forward to: evidence of which server the key belongs to.
      if (r === 200) expect(probe.feedChannels).toEqual(['1100000000000000002']);
      else expect(probe.feedChannels).toBeUndefined();
    }
    if (r === 401) expect(callCount(agent)).toBe(1); // an invalid key is not probed further
    else expect(postBody).toEqual({}); // a body no server can create a feed from
  });
});

describe('probeKey: other cases', () => {
  it('a 200 with a body off-contract still proves the read scope', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, { feeds: 'nope' });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, { servidor: 1 });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    const probe = await probeKey(client.requester, KEY);
    expect(probe.scopes).toEqual({ 'feeds:read': true, 'feeds:write': true, 'stats:read': true });
    expect(probe.stats).toBeUndefined();
    expect(probe.feedChannels).toBeUndefined();
  });

  it('lists each channel the feeds forward to once, in the order first seen', async ({ client, pool }) => {
    const feed = FEED_LIST.feeds[0]!;
    const feeds = [
      { ...feed, id: 1, canal: '1100000000000000009' },
      { ...feed, id: 2, canal: '1100000000000000002' },
      { ...feed, id: 3, canal: '1100000000000000009' },
    ];
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, { ...FEED_LIST, feeds, total: 3 });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(403, {});
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    const probe = await probeKey(client.requester, KEY);
    expect(probe.feedChannels).toEqual(['1100000000000000009', '1100000000000000002']);
  });

  it('time-outs and connection errors → null (could not tell)', async ({ pool, makeClient }) => {
    const c = makeClient({ timeoutMs: 30 });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST).delay(500);
    pool
      .intercept({ path: `${BASE_PATH}/stats`, method: 'GET' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {}).delay(500);
    const probe = await probeKey(c.requester, KEY);
    expect(probe).toEqual({ valid: true, scopes: { 'feeds:read': null, 'feeds:write': null, 'stats:read': null } });
  });

  it('an upstream 429 while probing is thrown', async ({ client, pool, clock }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST, { headers: rateHeaders(5, clock.resetIn(60)) });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(429, {}, { headers: rateHeaders(0, clock.resetIn(60)) });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    const err = await rejection(probeKey(client.requester, KEY));
    expect(err).toBeInstanceOf(RateLimitedError);
  });

  it('probes share the rate gate: a spent window refuses locally without sending', async ({ client, pool, agent, clock }) => {
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS, { headers: rateHeaders(0, clock.resetIn(60)) });
    await client.getStats({ apiKey: KEY, guildId: GUILD });
    const err = await rejection(probeKey(client.requester, KEY));
    expect(err).toBeInstanceOf(RateGateRefusalError);
    expect(callCount(agent)).toBe(1);
  });

  it('probing fills no feed cache', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    await probeKey(client.requester, KEY);
    expect(await client.cachedFeeds(GUILD)).toBeUndefined();
  });
});
