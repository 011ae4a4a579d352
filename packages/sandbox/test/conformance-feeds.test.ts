/**
 * Spec conformance (../shared/spec/feed-api.md), the feed endpoints: GET /feeds, POST /feeds,
 * DELETE /feeds/{id} and GET /feeds/{id}/posts with their fields, limits and validation, against
 * a real sandbox over HTTPS. Statistics, keys, plans, scopes and the order of checks:
 * conformance-access.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  CreateFeedResponseSchema,
  DeleteFeedResponseSchema,
  FeedListResponseSchema,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  PostsResponseSchema,
  type Scope,
} from '@feedbot/feed-api-contract';
import { DEFAULT_BODY_LIMIT } from '../src/index.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody, expectRateHeaders, sharedTestSandbox, startTestSandbox } from './helpers.js';

const sb = sharedTestSandbox({ rateLimit: { limit: 1_000_000 } });
const serverWithKey = (scopes: readonly Scope[] = ALL_SCOPES) => sb().admin.createScratchServer(scopes);

describe('GET /feeds', () => {
  it('lists exactly the server’s feeds with the spec’s fields, total and plan', async () => {
    const { guildId, key } = await serverWithKey();
    const a = await sb().admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post', 'reel'] });
    const b = await sb().admin.createFeed(guildId, {
      cuenta: 'natgeo',
      canalId: '1100000000000000043',
      tipos: ['story'],
      filtros: [{ palabra: 'x' }, { palabra: 'y' }],
    });
    const post = await sb().admin.addPost(guildId, b.id, { publicadoDiscord: '2026-01-02T03:04:05.000Z' });

    const res = await sb().call('GET', '/feeds', { key });
    expect(res.status).toBe(200);
    expectRateHeaders(res);
    const body = FeedListResponseSchema.parse(res.json);
    expect(Object.keys(res.json as object).sort()).toEqual(['feeds', 'plan', 'total']);
    expect(body.total).toBe(2);
    expect(body.plan).toBe('server');
    expect(body.feeds.map((f) => f.id)).toEqual([a.id, b.id]);
    for (const item of (res.json as { feeds: object[] }).feeds) {
      expect(Object.keys(item).sort()).toEqual(['canal', 'cuenta', 'estado', 'filtros', 'id', 'tipos', 'ultimoPost']);
    }
    expect(body.feeds[0]).toEqual({ id: a.id, cuenta: 'nasa', canal: CHANNEL, estado: 'activo', tipos: ['post', 'reel'], filtros: 0, ultimoPost: null });
    expect(body.feeds[1]).toMatchObject({ cuenta: 'natgeo', canal: '1100000000000000043', tipos: ['story'], filtros: 2, ultimoPost: post.publicadoDiscord });
  });

  it('shows a paused feed as `pausado` and back as `activo`', async () => {
    const { guildId, key } = await serverWithKey();
    const feed = await sb().admin.createFeed(guildId, { cuenta: 'spacex', canalId: CHANNEL, tipos: ['reel'] });
    await sb().admin.pauseFeed(guildId, feed.id);
    let body = FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json);
    expect(body.feeds[0]?.estado).toBe('pausado');
    await sb().admin.resumeFeed(guildId, feed.id);
    body = FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json);
    expect(body.feeds[0]?.estado).toBe('activo');
  });
});

describe('POST /feeds', () => {
  it('creates an `activo` feed: 201 with id, cuenta, canalId, estado, creado', async () => {
    const { key } = await serverWithKey();
    const before = Date.now();
    const res = await sb().call('POST', '/feeds', { key, body: { cuenta: 'cocina.facil', canalId: CHANNEL, tipos: ['post', 'story'], filtros: [] } });
    expect(res.status).toBe(201);
    expectRateHeaders(res);
    const created = CreateFeedResponseSchema.parse(res.json);
    expect(Object.keys(res.json as object).sort()).toEqual(['canalId', 'creado', 'cuenta', 'estado', 'id']);
    expect(created).toMatchObject({ cuenta: 'cocina.facil', canalId: CHANNEL, estado: 'activo' });
    expect(Date.parse(created.creado)).toBeGreaterThanOrEqual(before - 1000);
    expect(created.creado.endsWith('Z')).toBe(true);

    const list = FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json);
    expect(list.feeds).toEqual([
      { id: created.id, cuenta: 'cocina.facil', canal: CHANNEL, estado: 'activo', tipos: ['post', 'story'], filtros: 0, ultimoPost: null },
    ]);
  });

  it('filtros is optional and counted', async () => {
    const { key } = await serverWithKey();
    expect((await sb().call('POST', '/feeds', { key, body: { cuenta: 'a', canalId: CHANNEL, tipos: ['post'] } })).status).toBe(201);
    expect((await sb().call('POST', '/feeds', { key, body: { cuenta: 'b', canalId: CHANNEL, tipos: ['post'], filtros: [{ k: 1 }, {}, { z: 'w' }] } })).status).toBe(201);
    const list = FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json);
    expect(list.feeds.map((f) => f.filtros)).toEqual([0, 3]);
  });

  it.each([
    ['no body fields', {}, ['cuenta', 'canalId', 'tipos']],
    ['cuenta with @', { cuenta: '@nasa', canalId: CHANNEL, tipos: ['post'] }, ['cuenta']],
    ['cuenta too long', { cuenta: 'a'.repeat(31), canalId: CHANNEL, tipos: ['post'] }, ['cuenta']],
    ['canalId not a snowflake', { cuenta: 'nasa', canalId: 'general', tipos: ['post'] }, ['canalId']],
    ['canalId as number', { cuenta: 'nasa', canalId: 1100000000000, tipos: ['post'] }, ['canalId']],
    ['empty tipos', { cuenta: 'nasa', canalId: CHANNEL, tipos: [] }, ['tipos']],
    ['unknown tipo', { cuenta: 'nasa', canalId: CHANNEL, tipos: ['video'] }, ['tipos.0']],
    ['repeated tipo', { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post', 'post'] }, ['tipos']],
    ['filtros not an array', { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: 3 }, ['filtros']],
    ['filtro not an object', { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: ['x'] }, ['filtros.0']],
    ['too many filtros', { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: Array.from({ length: 21 }, () => ({})) }, ['filtros']],
  ])('400 invalid_request for %s, naming the fields', async (_name, body, fields) => {
    const { key } = await serverWithKey();
    const res = await sb().call('POST', '/feeds', { key, body });
    expect(res.status).toBe(400);
    expectRateHeaders(res);
    expectErrorBody(res, 'invalid_request');
    const detalles = (res.json as { error: { detalles: { campo: string }[] } }).error.detalles;
    expect(detalles.map((d) => d.campo).sort()).toEqual([...fields].sort());
    expect(FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json).total).toBe(0);
  });

  it('400 invalid_json for a body that is not JSON, 400 for a JSON array or string', async () => {
    const { key } = await serverWithKey();
    expectErrorBody(await sb().call('POST', '/feeds', { key, body: '{"cuenta":' }), 'invalid_json');
    expectErrorBody(await sb().call('POST', '/feeds', { key, body: [] }), 'invalid_request');
    expectErrorBody(await sb().call('POST', '/feeds', { key, body: '"nasa"' }), 'invalid_request');
    const xml = await sb().call('POST', '/feeds', { key, body: '<feed/>', contentType: 'application/xml' });
    expect(xml.status).toBe(400);
    expectErrorBody(xml, 'unsupported_content_type');
  });

  it('400 duplicate_feed for the same account to the same channel (case-insensitive)', async () => {
    const { key } = await serverWithKey();
    expect((await sb().call('POST', '/feeds', { key, body: { cuenta: 'NASA', canalId: CHANNEL, tipos: ['post'] } })).status).toBe(201);
    const dup = await sb().call('POST', '/feeds', { key, body: { cuenta: 'nasa', canalId: CHANNEL, tipos: ['reel'] } });
    expect(dup.status).toBe(400);
    expectErrorBody(dup, 'duplicate_feed');
    // Another channel is another feed.
    expect((await sb().call('POST', '/feeds', { key, body: { cuenta: 'nasa', canalId: '1100000000000000043', tipos: ['post'] } })).status).toBe(201);
  });
});

describe('filter size bounds', () => {
  /** A POST /feeds body (as text: too deep for JSON.stringify) with these filters. */
  const bodyWithFilters = (...filters: string[]): string =>
    `{"cuenta":"nasa","canalId":"${CHANNEL}","tipos":["post"],"filtros":[${filters.join(',')}]}`;
  /** An object holding arrays down to a value at `depth` levels. */
  const nested = (depth: number): string => `{"a":${'['.repeat(depth - 2)}0${']'.repeat(depth - 2)}}`;
  /** An object holding one array: `values` values in all. */
  const wide = (values: number): string => `{"v":[${Array(values - 2).fill(0).join(',')}]}`;

  async function expectFilterRefused(body: string): Promise<void> {
    const { key } = await serverWithKey();
    const res = await sb().call('POST', '/feeds', { key, body, contentType: 'application/json' });
    expect(res.status, res.text.slice(0, 200)).toBe(400);
    expectRateHeaders(res);
    expectErrorBody(res, 'invalid_request');
    const detalles = (res.json as { error: { detalles: { campo: string }[] } }).error.detalles;
    expect(detalles.map((d) => d.campo)).toEqual(['filtros.0']);
    expect(FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json).total).toBe(0);
  }

  it('a filter nested 20,000 levels deep (40 KB, under the body limit) is 400 naming filtros.0, and creates nothing', async () => {
    const body = bodyWithFilters(nested(20_000));
    expect(body.length).toBeGreaterThan(40_000);
    expect(body.length).toBeLessThan(DEFAULT_BODY_LIMIT);
    await expectFilterRefused(body);
  });

  it(`${MAX_FILTER_DEPTH} levels and ${MAX_FILTER_NODES} values are accepted; one more of either is 400`, async () => {
    const { key } = await serverWithKey();
    const atBounds = bodyWithFilters(nested(MAX_FILTER_DEPTH), wide(MAX_FILTER_NODES));
    expect((await sb().call('POST', '/feeds', { key, body: atBounds, contentType: 'application/json' })).status).toBe(201);
    await expectFilterRefused(bodyWithFilters(nested(MAX_FILTER_DEPTH + 1)));
    await expectFilterRefused(bodyWithFilters(wide(MAX_FILTER_NODES + 1)));
  });
});

describe('maximum feeds per server', () => {
  it('400 feed_limit past the maximum; deleting one makes room', async () => {
    const small = await startTestSandbox({ maxFeedsPerServer: 3, rateLimit: { limit: 1000 } });
    try {
      const { key } = await small.admin.createScratchServer(ALL_SCOPES);
      const ids: number[] = [];
      for (const cuenta of ['a1', 'a2', 'a3']) {
        const res = await small.call('POST', '/feeds', { key, body: { cuenta, canalId: CHANNEL, tipos: ['post'] } });
        expect(res.status).toBe(201);
        ids.push(CreateFeedResponseSchema.parse(res.json).id);
      }
      const over = await small.call('POST', '/feeds', { key, body: { cuenta: 'a4', canalId: CHANNEL, tipos: ['post'] } });
      expect(over.status).toBe(400);
      expectErrorBody(over, 'feed_limit');
      expectRateHeaders(over);
      expect((await small.call('DELETE', `/feeds/${ids[0]}`, { key })).status).toBe(200);
      expect((await small.call('POST', '/feeds', { key, body: { cuenta: 'a4', canalId: CHANNEL, tipos: ['post'] } })).status).toBe(201);
    } finally {
      await small.dispose();
    }
  });
});

describe('DELETE /feeds/{id}', () => {
  it('200 { ok, mensaje naming the id }, then the feed and its posts are gone for good', async () => {
    const { guildId, key } = await serverWithKey();
    const feed = await sb().admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    await sb().admin.addPost(guildId, feed.id);
    const res = await sb().call('DELETE', `/feeds/${feed.id}`, { key });
    expect(res.status).toBe(200);
    expectRateHeaders(res);
    const body = DeleteFeedResponseSchema.parse(res.json);
    expect(Object.keys(res.json as object).sort()).toEqual(['mensaje', 'ok']);
    expect(body.ok).toBe(true);
    expect(body.mensaje).toContain(String(feed.id));

    const again = await sb().call('DELETE', `/feeds/${feed.id}`, { key });
    expect(again.status).toBe(404);
    expectErrorBody(again, 'not_found');
    expect((await sb().call('GET', `/feeds/${feed.id}/posts`, { key })).status).toBe(404);
    expect(FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key })).json).total).toBe(0);
  });

  it.each(['abc', '0', '-1', '1.5', '1e3', '99999999999999999999'])('400 for the id %j', async (id) => {
    const { key } = await serverWithKey();
    const res = await sb().call('DELETE', `/feeds/${id}`, { key });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_request');
  });
});

describe('GET /feeds/{id}/posts', () => {
  async function feedWithPosts(count: number, kinds: ('post' | 'reel' | 'story')[] = ['post']) {
    const { guildId, key } = await serverWithKey();
    const feed = await sb().admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post', 'reel', 'story'] });
    const base = Date.parse('2026-03-01T00:00:00.000Z');
    for (let i = 0; i < count; i++) {
      await sb().admin.addPost(guildId, feed.id, {
        tipo: kinds[i % kinds.length],
        publicadoDiscord: new Date(base + i * 60_000).toISOString(),
        publicadoEn: new Date(base + i * 60_000 - 30_000).toISOString(),
      });
    }
    return { guildId, key, feed };
  }

  it('returns { posts } with every Post field; media and post URLs are served by the sandbox', async () => {
    const { key, feed } = await feedWithPosts(1);
    const res = await sb().call('GET', `/feeds/${feed.id}/posts`, { key });
    expect(res.status).toBe(200);
    expectRateHeaders(res);
    const { posts } = PostsResponseSchema.parse(res.json);
    expect(Object.keys(res.json as object)).toEqual(['posts']);
    const raw = (res.json as { posts: object[] }).posts[0] ?? {};
    expect(Object.keys(raw).sort()).toEqual(['caption', 'id', 'mediaUrl', 'postUrl', 'publicadoDiscord', 'publicadoEn', 'tipo']);
    const post = posts[0]!;
    expect(post.mediaUrl.startsWith(`${sb().url}/media/`)).toBe(true);
    expect(post.postUrl.startsWith(`${sb().url}/p/`)).toBe(true);
    expect(post.publicadoEn).toBe('2026-02-28T23:59:30.000Z');

    const media = await sb().call('GET', new URL(post.mediaUrl).pathname);
    expect(media.status).toBe(200);
    expect(media.headers['content-type']).toBe('image/png');
    expectRateHeaders(media);
    const page = await sb().call('GET', new URL(post.postUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(post.mediaUrl);
  });

  it('limite: default 10, up to 50, newest first', async () => {
    const { key, feed } = await feedWithPosts(60);
    const byDefault = PostsResponseSchema.parse((await sb().call('GET', `/feeds/${feed.id}/posts`, { key })).json).posts;
    expect(byDefault).toHaveLength(10);
    const times = byDefault.map((p) => p.publicadoDiscord);
    expect(times).toEqual([...times].sort().reverse());
    expect(times[0]).toBe(new Date(Date.parse('2026-03-01T00:00:00.000Z') + 59 * 60_000).toISOString());

    for (const [limite, expected] of [[1, 1], [37, 37], [50, 50]] as const) {
      const res = await sb().call('GET', `/feeds/${feed.id}/posts?limite=${limite}`, { key });
      expect(res.status).toBe(200);
      expect(PostsResponseSchema.parse(res.json).posts).toHaveLength(expected);
    }
  });

  it.each(['0', '51', '-1', '100', 'abc', '', '1.5', '1e1', '0x10', ' 5'])('limite=%j is 400', async (limite) => {
    const { key, feed } = await feedWithPosts(0);
    const res = await sb().call('GET', `/feeds/${feed.id}/posts?limite=${encodeURIComponent(limite)}`, { key });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_request');
    expectRateHeaders(res);
  });

  it('tipo filters by post, reel or story; anything else is 400', async () => {
    const { key, feed } = await feedWithPosts(9, ['post', 'reel', 'story']);
    for (const tipo of ['post', 'reel', 'story'] as const) {
      const res = await sb().call('GET', `/feeds/${feed.id}/posts?tipo=${tipo}`, { key });
      const posts = PostsResponseSchema.parse(res.json).posts;
      expect(posts).toHaveLength(3);
      expect(posts.every((p) => p.tipo === tipo)).toBe(true);
    }
    const both = PostsResponseSchema.parse((await sb().call('GET', `/feeds/${feed.id}/posts?tipo=reel&limite=2`, { key })).json).posts;
    expect(both).toHaveLength(2);
    for (const bad of ['video', 'POST', 'reel,story']) {
      expectErrorBody(await sb().call('GET', `/feeds/${feed.id}/posts?tipo=${encodeURIComponent(bad)}`, { key }), 'invalid_request');
    }
    expectErrorBody(await sb().call('GET', `/feeds/${feed.id}/posts?tipo=post&tipo=reel`, { key }), 'invalid_request');
  });

  it('orders by forwarding time, newest first, whatever the insertion order; ties: last inserted first', async () => {
    const { guildId, key } = await serverWithKey();
    const feed = await sb().admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    const at = (iso: string) => ({ publicadoDiscord: iso });
    const p2 = await sb().admin.addPost(guildId, feed.id, at('2026-03-02T00:00:00.000Z'));
    const p1 = await sb().admin.addPost(guildId, feed.id, at('2026-03-01T00:00:00.000Z'));
    const p3 = await sb().admin.addPost(guildId, feed.id, at('2026-03-03T00:00:00.000Z'));
    const p3b = await sb().admin.addPost(guildId, feed.id, at('2026-03-03T00:00:00.000Z'));
    const ids = PostsResponseSchema.parse((await sb().call('GET', `/feeds/${feed.id}/posts`, { key })).json).posts.map((p) => p.id);
    expect(ids).toEqual([p3b.code, p3.code, p2.code, p1.code]);
  });

  it('an empty feed has { posts: [] }; a missing feed is 404', async () => {
    const { key, feed } = await feedWithPosts(0);
    expect((await sb().call('GET', `/feeds/${feed.id}/posts`, { key })).json).toEqual({ posts: [] });
    const missing = await sb().call('GET', '/feeds/2000000000/posts', { key });
    expect(missing.status).toBe(404);
    expectErrorBody(missing, 'not_found');
  });
});
