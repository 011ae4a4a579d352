/**
 * A retried DELETE that finds the feed gone. DELETE is retried because it is idempotent: if an
 * attempt that may have reached the API (time-out, reset, 5xx) deleted the feed, the retry's 404
 * is what that attempt left, and the call succeeded. A 404 to the first attempt, or after
 * attempts that never left the bot (a refused connection), still means "no such feed".
 */
import { describe, expect } from 'vitest';
import * as api from '../../src/api/errors.js';
import { mayHaveReachedServer } from '../../src/api/retry-policy.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, DELETED, FEED_LIST, rejection } from './helpers.js';

const feed7 = { path: `${BASE_PATH}/feeds/7`, method: 'DELETE' };
const gone = { error: { codigo: 'not_found', mensaje: 'Feed no encontrado' } };
const connError = (code: string) => Object.assign(new Error(`simulated ${code}`), { code });

describe('a retried DELETE answered 404', () => {
  it('after a 5xx: deleted; the 404 is still reported as a status event', async ({ client, pool, agent, events }) => {
    pool.intercept(feed7).reply(503, {});
    pool.intercept(feed7).reply(404, gone);
    await expect(client.deleteFeed(AUTH, 7)).resolves.toEqual({ ok: true, mensaje: '' });
    expect(callCount(agent)).toBe(2);
    expect(events.map((e) => [e.attempt, e.kind === 'status' ? e.status : e.kind, e.retrying])).toEqual([
      [1, 503, true],
      [2, 404, false],
    ]);
  });

  it('after a time-out: deleted', async ({ makeClient, pool }) => {
    const client = makeClient({ timeoutMs: 50 });
    pool.intercept(feed7).reply(200, DELETED).delay(1000);
    pool.intercept(feed7).reply(404, gone);
    await expect(client.deleteFeed(AUTH, 7)).resolves.toMatchObject({ ok: true });
  });

  it('after a reset: deleted', async ({ client, pool }) => {
    pool.intercept(feed7).replyWithError(connError('ECONNRESET'));
    pool.intercept(feed7).reply(404, gone);
    await expect(client.deleteFeed(AUTH, 7)).resolves.toMatchObject({ ok: true });
  });

  it('after a 200 whose body is no JSON (a proxy page): asked again, and the 404 says it is deleted', async ({ client, pool, agent, events }) => {
    pool.intercept(feed7).reply(200, '<html><h1>502 Bad Gateway</h1></html>', { headers: { 'content-type': 'text/html' } });
    pool.intercept(feed7).reply(404, gone);
    await expect(client.deleteFeed(AUTH, 7)).resolves.toEqual({ ok: true, mensaje: '' });
    expect(callCount(agent)).toBe(2);
    expect(events.map((e) => [e.attempt, e.kind === 'status' ? e.status : e.kind, e.retrying])).toEqual([
      [1, 200, true],
      [2, 404, false],
    ]);
  });

  it('a GET answered with no JSON is asked again; JSON that breaks the contract and a POST are not', async ({ client, pool, agent }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, '');
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST);
    await expect(client.listFeeds(AUTH)).resolves.toMatchObject({ feeds: expect.any(Array) });
    expect(callCount(agent)).toBe(2);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, { nothing: 'of the contract' });
    await expect(client.getStats(AUTH)).rejects.toBeInstanceOf(api.InvalidResponseError);
    expect(callCount(agent)).toBe(3);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(201, '<html>oops</html>');
    await expect(client.createFeed(AUTH, { cuenta: 'nasa', canalId: '123456789012345678', tipos: ['post'], filtros: [] })).rejects.toBeInstanceOf(api.InvalidResponseError);
    expect(callCount(agent)).toBe(4);
  });

  it('after refused connections only (nothing was sent): NotFoundError, naming the feed', async ({ client, pool }) => {
    pool.intercept(feed7).replyWithError(connError('ECONNREFUSED'));
    pool.intercept(feed7).reply(404, gone);
    const err = (await rejection(client.deleteFeed(AUTH, 7))) as api.NotFoundError;
    expect(err).toBeInstanceOf(api.NotFoundError);
    expect(err).toMatchObject({ feedId: 7, attempts: 2, afterAttemptThatMayHaveArrived: false });
  });

  it('to the first attempt: NotFoundError', async ({ client, pool }) => {
    pool.intercept(feed7).reply(404, gone);
    const err = (await rejection(client.deleteFeed(AUTH, 7))) as api.NotFoundError;
    expect(err).toBeInstanceOf(api.NotFoundError);
    expect(err).toMatchObject({ attempts: 1, afterAttemptThatMayHaveArrived: false });
  });

  it('the guild list is invalidated either way', async ({ client, pool, agent }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST).times(2);
    await client.listFeeds(AUTH);
    pool.intercept(feed7).reply(502, {});
    pool.intercept(feed7).reply(404, gone);
    await client.deleteFeed(AUTH, 7);
    await client.listFeeds(AUTH);
    expect(callCount(agent)).toBe(4);
  });

  it('a GET answered 404 after a 5xx is still NotFoundError (only deleteFeed reads it as gone)', async ({ client, pool }) => {
    const posts = { path: `${BASE_PATH}/feeds/7/posts`, method: 'GET' };
    pool.intercept(posts).reply(503, {});
    pool.intercept(posts).reply(404, gone);
    const err = (await rejection(client.listPosts(AUTH, 7))) as api.NotFoundError;
    expect(err).toBeInstanceOf(api.NotFoundError);
    expect(err.afterAttemptThatMayHaveArrived).toBe(true);
  });
});

describe('mayHaveReachedServer', () => {
  it.each([
    [{ kind: 'status', status: 503 }, true],
    [{ kind: 'timeout' }, true],
    [{ kind: 'connection', systemCode: 'ECONNRESET' }, true],
    [{ kind: 'connection', systemCode: 'UND_ERR_SOCKET' }, true],
    [{ kind: 'connection' }, true],
    [{ kind: 'connection', systemCode: 'ECONNREFUSED' }, false],
    [{ kind: 'connection', systemCode: 'ENOTFOUND' }, false],
    [{ kind: 'connection', systemCode: 'UND_ERR_CONNECT_TIMEOUT' }, false],
  ] as const)('%j → %s', (outcome, expected) => {
    expect(mayHaveReachedServer(outcome)).toBe(expected);
  });
});
