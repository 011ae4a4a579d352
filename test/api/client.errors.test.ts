import { describe, expect } from 'vitest';
import type { Interceptable } from 'undici';
import type { FeedApiClient } from '../../src/api/client.js';
import * as api from '../../src/api/errors.js';
import { ROUTES, type RouteName } from '@feedbot/feed-api-contract';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, CREATED, DELETED, FEED_LIST, NEW_FEED, POSTS, STATS, rateHeaders, rejection } from './helpers.js';

interface RouteCase {
  route: RouteName;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  ok: object;
  run: (c: FeedApiClient) => Promise<unknown>;
  /** The feed the route is about: its 404 carries it. */
  feedId?: number;
}

const ROUTE_CASES: RouteCase[] = [
  { route: 'listFeeds', method: 'GET', path: '/feeds', ok: FEED_LIST, run: (c) => c.listFeeds(AUTH, { fresh: true }) },
  { route: 'createFeed', method: 'POST', path: '/feeds', ok: CREATED, run: (c) => c.createFeed(AUTH, NEW_FEED) },
  { route: 'deleteFeed', method: 'DELETE', path: '/feeds/7', ok: DELETED, run: (c) => c.deleteFeed(AUTH, 7), feedId: 7 },
  { route: 'listPosts', method: 'GET', path: '/feeds/7/posts', ok: POSTS, run: (c) => c.listPosts(AUTH, 7), feedId: 7 },
  { route: 'getStats', method: 'GET', path: '/stats', ok: STATS, run: (c) => c.getStats(AUTH) },
];

function intercept(pool: Interceptable, rc: RouteCase) {
  return pool.intercept({ path: `${BASE_PATH}${rc.path}`, method: rc.method });
}

function connError(code: string): Error {
  return Object.assign(new Error(`simulated ${code}`), { code });
}

describe('HTTP statuses map to one class each', () => {
  const statuses: Array<[number, new (...a: never[]) => api.FeedApiHttpError, string]> = [
    [400, api.BadRequestError, 'bad_request'],
    [401, api.UnauthorizedError, 'unauthorized'],
    [404, api.NotFoundError, 'not_found'],
    [409, api.UnexpectedStatusError, 'unexpected_status'],
    [418, api.UnexpectedStatusError, 'unexpected_status'],
    [302, api.UnexpectedStatusError, 'unexpected_status'],
    [501, api.ServerError, 'server_error'],
  ];
  for (const rc of ROUTE_CASES) {
    it.for(statuses)(`${rc.route}: %i`, async ([status, cls, code], { client, pool, agent }) => {
      intercept(pool, rc).reply(status, { mensaje: `status ${status}` });
      const err = await rejection(rc.run(client));
      expect(err).toBeInstanceOf(cls);
      expect(err).toBeInstanceOf(api.FeedApiHttpError);
      expect(err).toBeInstanceOf(api.FeedApiError);
      const e = err as api.FeedApiHttpError;
      expect(e.status).toBe(status);
      expect(e.code).toBe(code);
      expect(e.route).toBe(rc.route);
      expect(e.attempts).toBe(1); // none of these is retried, 501 included
      expect(e.apiMessage).toBe(`status ${status}`);
      expect(e.body).toEqual({ mensaje: `status ${status}` });
      expect(callCount(agent)).toBe(1);
    });

    it(`${rc.route}: a 404 carries the feed id the route was about${rc.feedId ? '' : ' (none)'}`, async ({ client, pool }) => {
      intercept(pool, rc).reply(404, {});
      const err = (await rejection(rc.run(client))) as api.NotFoundError;
      expect(err).toBeInstanceOf(api.NotFoundError);
      expect(err.feedId).toBe(rc.feedId);
    });

    it(`${rc.route}: 403 names the scope the route needs`, async ({ client, pool }) => {
      intercept(pool, rc).reply(403, { error: { codigo: 'forbidden', mensaje: 'falta scope' } });
      const err = await rejection(rc.run(client));
      expect(err).toBeInstanceOf(api.ForbiddenError);
      expect((err as api.ForbiddenError).requiredScope).toBe(ROUTES[rc.route].scope);
      expect((err as api.ForbiddenError).message).toContain(ROUTES[rc.route].scope);
      expect((err as api.ForbiddenError).apiMessage).toBe('falta scope');
    });

    it(`${rc.route}: 429 carries the reset time and is never retried`, async ({ client, pool, agent, clock }) => {
      intercept(pool, rc).reply(429, { message: 'slow down' }, { headers: rateHeaders(0, clock.resetIn(42)) });
      const err = await rejection(rc.run(client));
      expect(err).toBeInstanceOf(api.RateLimitedError);
      const e = err as api.RateLimitedError;
      expect(e.status).toBe(429);
      expect(e.code).toBe('rate_limited'); // the API's own 429, not the local gate's refusal
      expect(e.attempts).toBe(1);
      expect(e.resetAt.getTime()).toBe(Math.floor(clock.ms / 1000 + 42) * 1000);
      expect(e.apiMessage).toBe('slow down');
      expect(callCount(agent)).toBe(1);
    });

    it(`${rc.route}: success body passes through`, async ({ client, pool }) => {
      intercept(pool, rc).reply(rc.method === 'POST' ? 201 : 200, rc.ok);
      await expect(rc.run(client)).resolves.toEqual(rc.ok);
    });
  }

  it('429 without reset header falls back to Retry-After, then to a full window', async ({ client, pool, clock }) => {
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(429, '', { headers: { 'retry-after': '5' } });
    const a = (await rejection(client.getStats(AUTH))) as api.RateLimitedError;
    expect(a.resetAt.getTime()).toBe(clock.ms + 5000);

    clock.advance(6000);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(429, 'Too Many Requests');
    const b = (await rejection(client.getStats(AUTH))) as api.RateLimitedError;
    expect(b.resetAt.getTime()).toBe(clock.ms + 60_000);
    expect(b.apiMessage).toBe('Too Many Requests');
  });
});

describe('apiMessage from any error body shape', () => {
  const shapes: Array<[string, unknown, string | undefined]> = [
    ['sandbox shape with details', { error: { codigo: 'invalid_request', mensaje: 'Datos inválidos', detalles: [{ campo: 'cuenta', mensaje: 'requerido' }] } }, 'Datos inválidos (cuenta: requerido)'],
    ['top-level mensaje', { mensaje: 'cuenta inválida' }, 'cuenta inválida'],
    ['top-level message', { message: 'bad input' }, 'bad input'],
    ['error string', { error: 'invalid_body' }, 'invalid_body'],
    ['error.message', { error: { message: 'nope' } }, 'nope'],
    ['detail (RFC 7807 style)', { title: 'Bad Request', detail: 'tipos is required' }, 'tipos is required'],
    ['errors[0].message', { errors: [{ message: 'first' }, { message: 'second' }] }, 'first'],
    ['plain text', 'cuenta is required', 'cuenta is required'],
    ['HTML page', '<html><body>502 Bad Gateway</body></html>', undefined],
    ['empty body', '', undefined],
    ['JSON with no message', { ok: false, codigo: 42 }, undefined],
    ['JSON array', [1, 2, 3], undefined],
    ['control characters stripped', { message: 'line1\n\u0007line2\u202e' }, 'line1 line2'],
  ];
  it.for(shapes)('%s', async ([, body, expected], { client, pool }) => {
    pool
      .intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' })
      .reply(400, typeof body === 'string' ? body : JSON.stringify(body));
    const err = (await rejection(client.createFeed(AUTH, NEW_FEED))) as api.BadRequestError;
    expect(err).toBeInstanceOf(api.BadRequestError);
    expect(err.apiMessage).toBe(expected);
  });

  it('truncates long messages to 300 characters', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, { message: 'x'.repeat(1000) });
    const err = (await rejection(client.createFeed(AUTH, NEW_FEED))) as api.BadRequestError;
    expect(err.apiMessage).toHaveLength(300);
  });
});

describe('retries', () => {
  for (const status of [500, 502, 503]) {
    it(`GET ${status} is retried (3 attempts by default) then surfaced`, async ({ client, pool, agent }) => {
      pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(status, { message: 'down' }).times(3);
      const err = (await rejection(client.getStats(AUTH))) as api.ServerError;
      expect(err).toBeInstanceOf(api.ServerError);
      expect(err.status).toBe(status);
      expect(err.attempts).toBe(3);
      expect(callCount(agent)).toBe(3);
    });

    it(`DELETE ${status} is retried and may then succeed`, async ({ client, pool, agent }) => {
        pool.intercept({ path: `${BASE_PATH}/feeds/7`, method: 'DELETE' }).reply(status, {});
      pool.intercept({ path: `${BASE_PATH}/feeds/7`, method: 'DELETE' }).reply(200, DELETED);
      await expect(client.deleteFeed(AUTH, 7)).resolves.toEqual(DELETED);
      expect(callCount(agent)).toBe(2);
    });

    it(`POST ${status} is never retried`, async ({ client, pool, agent }) => {
      pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(status, {});
      const err = (await rejection(client.createFeed(AUTH, NEW_FEED))) as api.ServerError;
      expect(err).toBeInstanceOf(api.ServerError);
      expect(err.attempts).toBe(1);
      expect(callCount(agent)).toBe(1);
    });
  }

  it('maxRetries: 0 sends once', async ({ pool, makeClient }) => {
    const c = makeClient({ maxRetries: 0 });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(503, {});
    expect(((await rejection(c.getStats(AUTH))) as api.ServerError).attempts).toBe(1);
  });

  it('a GET time-out is retried; the retry can succeed', async ({ pool, agent, makeClient }) => {
    const c = makeClient({ timeoutMs: 50 });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS).delay(1000);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS);
    await expect(c.getStats(AUTH)).resolves.toEqual(STATS);
    expect(callCount(agent)).toBe(2);
  });

  it('GET time-outs on every attempt → TimeoutError', async ({ pool, makeClient }) => {
    const c = makeClient({ timeoutMs: 50 });
    pool.intercept({ path: `${BASE_PATH}/feeds/1/posts`, method: 'GET' }).reply(200, POSTS).delay(1000).times(3);
    const err = (await rejection(c.listPosts(AUTH, 1))) as api.TimeoutError;
    expect(err).toBeInstanceOf(api.TimeoutError);
    expect(err.code).toBe('timeout');
    expect(err.attempts).toBe(3);
  });

  it('a POST time-out is not retried (the feed may have been created)', async ({ pool, agent, makeClient }) => {
    const c = makeClient({ timeoutMs: 50 });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED).delay(1000);
    const err = (await rejection(c.createFeed(AUTH, NEW_FEED))) as api.TimeoutError;
    expect(err).toBeInstanceOf(api.TimeoutError);
    expect(err.attempts).toBe(1);
    expect(callCount(agent)).toBe(1);
  });

  it('the overall deadline stops retries that would not fit', async ({ pool, makeClient }) => {
    const c = makeClient({ timeoutMs: 100, totalTimeoutMs: 150, maxRetries: 5 });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS).delay(1000);
    const err = (await rejection(c.getStats(AUTH))) as api.TimeoutError;
    expect(err).toBeInstanceOf(api.TimeoutError);
    expect(err.attempts).toBe(1);
  });

  it('connection errors → ConnectionError; GET retried on a reset', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).replyWithError(connError('ECONNRESET')).times(3);
    const err = (await rejection(client.getStats(AUTH))) as api.ConnectionError;
    expect(err).toBeInstanceOf(api.ConnectionError);
    expect(err.code).toBe('connection');
    expect(err.systemCode).toBe('ECONNRESET');
    expect(err.attempts).toBe(3);
  });

  it('POST is retried on a refused connection (nothing was sent) and then succeeds', async ({ client, pool, agent }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).replyWithError(connError('ECONNREFUSED'));
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, CREATED);
    await expect(client.createFeed(AUTH, NEW_FEED)).resolves.toEqual(CREATED);
    expect(callCount(agent)).toBe(2);
  });

  it('POST is not retried on a reset (the request may have arrived)', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).replyWithError(connError('ECONNRESET'));
    const err = (await rejection(client.createFeed(AUTH, NEW_FEED))) as api.ConnectionError;
    expect(err).toBeInstanceOf(api.ConnectionError);
    expect(err.attempts).toBe(1);
  });

  it('TLS failures are not retried, even for GET', async ({ client, pool }) => {
    pool
      .intercept({ path: `${BASE_PATH}/stats`, method: 'GET' })
      .replyWithError(connError('DEPTH_ZERO_SELF_SIGNED_CERT'));
    const err = (await rejection(client.getStats(AUTH))) as api.ConnectionError;
    expect(err).toBeInstanceOf(api.ConnectionError);
    expect(err.systemCode).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(err.attempts).toBe(1);
  });
});

describe('response validation', () => {
  // No JSON at all is a page some proxy answered instead of the API: a GET or DELETE asks again
  // (client.delete-retry.test.ts), and still none after the retries is the error.
  it('not JSON → InvalidResponseError once the retries also got none', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, 'this is not json {').times(3);
    const err = (await rejection(client.getStats(AUTH))) as api.InvalidResponseError;
    expect(err).toBeInstanceOf(api.InvalidResponseError);
    expect(err.code).toBe('invalid_response');
    expect(err.issues).toEqual(['(root): body is not valid JSON']);
    expect(err.attempts).toBe(3);
  });

  it('empty 2xx body → InvalidResponseError', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds/7`, method: 'DELETE' }).reply(204, '').times(3);
    const err = (await rejection(client.deleteFeed(AUTH, 7))) as api.InvalidResponseError;
    expect(err).toBeInstanceOf(api.InvalidResponseError);
    expect(err.issues[0]).toMatch(/empty body/);
  });

  it('missing and mistyped fields are each reported with their path', async ({ client, pool }) => {
    const bad = {
      feeds: [{ ...FEED_LIST.feeds[0], id: 'one' }, { ...FEED_LIST.feeds[0], cuenta: undefined }],
      plan: 'server',
    };
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, bad);
    const err = (await rejection(client.listFeeds(AUTH))) as api.InvalidResponseError;
    expect(err).toBeInstanceOf(api.InvalidResponseError);
    expect(err.issues).toHaveLength(3);
    expect(err.issues.some((i) => i.startsWith('feeds[0].id: ') && /number/.test(i))).toBe(true);
    expect(err.issues.some((i) => i.startsWith('feeds[1].cuenta: '))).toBe(true);
    expect(err.issues.some((i) => i.startsWith('total: '))).toBe(true);
    expect(err.message).toContain('feeds[0].id');
  });

  it('a bad timestamp is reported', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, { ...STATS, ultimaActividad: 'yesterday' });
    const err = (await rejection(client.getStats(AUTH))) as api.InvalidResponseError;
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]).toMatch(/^ultimaActividad: /);
  });

  it('extra fields are tolerated (and dropped)', async ({ client, pool }) => {
    const extra = { ...STATS, nuevoCampo: 1, plan: 'server', nested: { a: 1 } };
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, extra);
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
  });

  it('an unknown feed state is accepted (the spec list is open)', async ({ client, pool }) => {
    const list = { ...FEED_LIST, feeds: [{ ...FEED_LIST.feeds[0], estado: 'suspendido' }] };
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, list);
    await expect(client.listFeeds(AUTH)).resolves.toEqual(list);
  });
});
