import { describe, expect } from 'vitest';
import { FeedApiClient } from '../../src/api/client.js';
import { InvalidRequestError } from '../../src/api/errors.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, BASE_URL, CREATED, DELETED, FEED_LIST, KEY, NEW_FEED, POSTS, STATS, rejection } from './helpers.js';

const bearer = { authorization: `Bearer ${KEY}` };

describe('routes: success', () => {
  it('GET /feeds under the base path, with Bearer auth and JSON accept', async ({ client, pool }) => {
    pool
      .intercept({ path: `${BASE_PATH}/feeds`, method: 'GET', headers: { ...bearer, accept: 'application/json' } })
      .reply(200, FEED_LIST);
    await expect(client.listFeeds(AUTH)).resolves.toEqual(FEED_LIST);
  });

  it('POST /feeds sends the validated body (filtros defaulted) as JSON and returns the 201 body', async ({ client, pool }) => {
    let sent: unknown;
    pool
      .intercept({
        path: `${BASE_PATH}/feeds`,
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: (b) => {
          sent = JSON.parse(b);
          return true;
        },
      })
      .reply(201, CREATED);
    await expect(client.createFeed(AUTH, NEW_FEED)).resolves.toEqual(CREATED);
    expect(sent).toEqual({ ...NEW_FEED, filtros: [] });
  });

  it('DELETE /feeds/{id}', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds/7`, method: 'DELETE', headers: bearer }).reply(200, DELETED);
    await expect(client.deleteFeed(AUTH, 7)).resolves.toEqual(DELETED);
  });

  it('GET /feeds/{id}/posts without and with a query', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/feeds/3/posts`, method: 'GET', headers: bearer }).reply(200, POSTS);
    pool
      .intercept({ path: `${BASE_PATH}/feeds/3/posts?limite=25&tipo=reel`, method: 'GET', headers: bearer })
      .reply(200, { posts: [] });
    await expect(client.listPosts(AUTH, 3)).resolves.toEqual(POSTS);
    await expect(client.listPosts(AUTH, 3, { limite: 25, tipo: 'reel' })).resolves.toEqual({ posts: [] });
  });

  it('GET /stats', async ({ client, pool }) => {
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET', headers: bearer }).reply(200, STATS);
    await expect(client.getStats(AUTH)).resolves.toEqual(STATS);
  });

  it('a base URL with a trailing slash does not double the slash', async ({ makeClient, pool }) => {
    const c = makeClient({ baseUrl: `${BASE_URL}/` });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS);
    await expect(c.getStats(AUTH)).resolves.toEqual(STATS);
  });

  it('nullable fields (ultimoPost, cuentaMasActiva, ultimaActividad) accept null', async ({ client, pool }) => {
    const list = { ...FEED_LIST, feeds: [{ ...FEED_LIST.feeds[0], ultimoPost: null }] };
    const stats = { ...STATS, cuentaMasActiva: null, ultimaActividad: null };
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, list);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, stats);
    await expect(client.listFeeds(AUTH)).resolves.toEqual(list);
    await expect(client.getStats(AUTH)).resolves.toEqual(stats);
  });
});

describe('input validation (nothing is sent)', () => {
  const cases: Array<[string, (c: FeedApiClient) => Promise<unknown>]> = [
    ['empty key', (c) => c.getStats({ apiKey: '', guildId: '1' })],
    ['key with a newline (header injection)', (c) => c.getStats({ apiKey: 'a\r\nX-Evil: 1', guildId: '1' })],
    ['non-integer feed id', (c) => c.deleteFeed(AUTH, 1.5)],
    ['zero feed id', (c) => c.listPosts(AUTH, 0)],
    ['limite above 50', (c) => c.listPosts(AUTH, 1, { limite: 51 })],
    ['unknown tipo', (c) => c.listPosts(AUTH, 1, { tipo: 'video' as never })],
    ['create without tipos', (c) => c.createFeed(AUTH, { ...NEW_FEED, tipos: [] })],
    ['create with a bad account name', (c) => c.createFeed(AUTH, { ...NEW_FEED, cuenta: 'a..b' })],
  ];
  it.for(cases)('%s → InvalidRequestError', async ([, run], { client, agent }) => {
    const err = await rejection(run(client));
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).attempts).toBe(0);
    expect((err as InvalidRequestError).issues.length).toBeGreaterThan(0);
    expect(callCount(agent)).toBe(0);
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => new FeedApiClient({ baseUrl: 'ftp://api.example/v1' })).toThrow();
    expect(() => new FeedApiClient({ baseUrl: 'not a url' })).toThrow();
  });
});
