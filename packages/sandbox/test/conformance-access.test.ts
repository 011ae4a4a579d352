/**
 * Spec conformance (../shared/spec/feed-api.md), who may do what: GET /stats, the cross-server
 * rule, authentication, plans, the scope table, the order of checks and the 500 row of the error
 * table, against a real sandbox over HTTPS. The feed endpoints: conformance-feeds.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FeedListResponseSchema, StatsSchema, type Scope } from '@feedbot/feed-api-contract';
import { ALL_SCOPES, CHANNEL, expectErrorBody, expectRateHeaders, sharedTestSandbox, startTestSandbox } from './helpers.js';

const sb = sharedTestSandbox({ rateLimit: { limit: 1_000_000 } });
const serverWithKey = (scopes: readonly Scope[] = ALL_SCOPES) => sb().admin.createScratchServer(scopes);

describe('GET /stats', () => {
  it('returns every Statistics field for the key’s server; nulls when nothing was forwarded', async () => {
    const { guildId, key } = await serverWithKey();
    const res = await sb().call('GET', '/stats', { key });
    expect(res.status).toBe(200);
    expectRateHeaders(res);
    const nothingForwarded = { feedsActivos: 0, feedsPausados: 0, postsHoy: 0, postsEstaSemana: 0, cuentaMasActiva: null, ultimaActividad: null };
    expect(StatsSchema.parse(res.json)).toEqual({ servidor: guildId, plan: 'server', ...nothingForwarded });
    // Every field of the spec and nothing else (parse() would drop unknown keys).
    expect(Object.keys(res.json as object).sort()).toEqual(Object.keys(StatsSchema.shape).sort());
  });
});

describe('servers see only their own data', () => {
  it('another server’s feed id is 404 exactly like a missing one, and nothing of it leaks', async () => {
    const a = await serverWithKey();
    const b = await serverWithKey();
    const feedA = await sb().admin.createFeed(a.guildId, { cuenta: 'secreto_de_a', canalId: CHANNEL, tipos: ['post'] });
    await sb().admin.addPost(a.guildId, feedA.id, { caption: 'privado de A' });
    const feedB = await sb().admin.createFeed(b.guildId, { cuenta: 'publico_de_b', canalId: CHANNEL, tipos: ['post'] });
    // A missing id of the same magnitude, so the two messages can be compared with the id masked.
    const missingId = feedA.id + 1_000_000;

    for (const [method, path] of [
      ['GET', '/posts'],
      ['DELETE', ''],
    ] as const) {
      const cross = await sb().call(method, `/feeds/${feedA.id}${path}`, { key: b.key });
      const missing = await sb().call(method, `/feeds/${missingId}${path}`, { key: b.key });
      expect(cross.status).toBe(404);
      expect(missing.status).toBe(404);
      const mask = (text: string, id: number) => text.replaceAll(String(id), '<id>');
      expect(mask(cross.text, feedA.id)).toBe(mask(missing.text, missingId));
      expect(Object.keys(cross.headers).sort()).toEqual(Object.keys(missing.headers).sort());
      expect(cross.text).not.toContain('secreto_de_a');
    }

    const listB = FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key: b.key })).json);
    expect(listB.feeds.map((f) => f.id)).toEqual([feedB.id]);
    const statsB = StatsSchema.parse((await sb().call('GET', '/stats', { key: b.key })).json);
    expect(statsB).toMatchObject({ servidor: b.guildId, feedsActivos: 1, postsHoy: 0, cuentaMasActiva: null });
    // A's feed survived B's delete attempt.
    expect(FeedListResponseSchema.parse((await sb().call('GET', '/feeds', { key: a.key })).json).feeds.map((f) => f.id)).toEqual([feedA.id]);
  });
});

describe('authentication', () => {
  it('401 missing_api_key without Authorization, with WWW-Authenticate and rate headers', async () => {
    const res = await sb().call('GET', '/feeds');
    expect(res.status).toBe(401);
    expectErrorBody(res, 'missing_api_key');
    expectRateHeaders(res);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it.each([
    ['an unknown key', `Bearer fbk_${'A'.repeat(40)}`],
    ['a malformed key', 'Bearer not-a-key'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['the key without scheme', `fbk_${'B'.repeat(40)}`],
  ])('401 invalid_api_key for %s', async (_name, authorization) => {
    const res = await sb().call('GET', '/feeds', { headers: { authorization } });
    expect(res.status).toBe(401);
    expectErrorBody(res, 'invalid_api_key');
    expectRateHeaders(res);
  });

  it('accepts the scheme in any case', async () => {
    const { key } = await serverWithKey();
    expect((await sb().call('GET', '/feeds', { headers: { authorization: `bearer ${key}` } })).status).toBe(200);
  });

  it('regenerating invalidates the previous key immediately; the new one works', async () => {
    const { guildId, key: oldKey } = await serverWithKey();
    expect((await sb().call('GET', '/feeds', { key: oldKey })).status).toBe(200);
    const newKey = await sb().admin.generateKey(guildId, ALL_SCOPES);
    expect(newKey).not.toBe(oldKey);
    const old = await sb().call('GET', '/feeds', { key: oldKey });
    expect(old.status).toBe(401);
    expectErrorBody(old, 'invalid_api_key');
    expect((await sb().call('GET', '/feeds', { key: newKey })).status).toBe(200);
    expect((await sb().call('GET', '/stats', { key: oldKey })).status).toBe(401);
  });

  it('a revoked key is 401', async () => {
    const { guildId, key } = await serverWithKey();
    await sb().admin.revokeKey(guildId);
    expect((await sb().call('GET', '/feeds', { key })).status).toBe(401);
  });

  it('keys look like fbk_ + 40 base62 characters and the admin only ever shows them masked', async () => {
    const { guildId, key } = await serverWithKey(['stats:read']);
    expect(key).toMatch(/^fbk_[0-9A-Za-z]{40}$/);
    const described = await sb().admin.describeKey(guildId);
    expect(described?.masked.endsWith(key.slice(-4))).toBe(true);
    expect(described?.masked).not.toContain(key.slice(4, 36));
    expect(described?.scopes).toEqual(['stats:read']);
  });
});

describe('plan', () => {
  it('403 plan_required on every endpoint for a server not on `server`, whatever the scopes; the plan change applies at once', async () => {
    const { guildId, key } = await sb().admin.createScratchServer(ALL_SCOPES, { plan: 'free' });
    for (const [method, path] of [
      ['GET', '/feeds'],
      ['POST', '/feeds'],
      ['DELETE', '/feeds/1'],
      ['GET', '/feeds/1/posts'],
      ['GET', '/stats'],
    ] as const) {
      const res = await sb().call(method, path, { key, body: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expectErrorBody(res, 'plan_required');
      expectRateHeaders(res);
    }
    await sb().admin.setPlan(guildId, 'server');
    expect((await sb().call('GET', '/feeds', { key })).status).toBe(200);
    await sb().admin.setPlan(guildId, 'pro');
    expect((await sb().call('GET', '/feeds', { key })).status).toBe(403);
  });
});

describe('scope matrix: every endpoint × every scope set', () => {
  const scopeSets: Scope[][] = [];
  for (let mask = 0; mask < 8; mask++) scopeSets.push(ALL_SCOPES.filter((_, i) => mask & (1 << i)));

  const endpoints = [
    { name: 'GET /feeds', scope: 'feeds:read', ok: 200 },
    { name: 'POST /feeds', scope: 'feeds:write', ok: 201 },
    { name: 'DELETE /feeds/{id}', scope: 'feeds:write', ok: 200 },
    { name: 'GET /feeds/{id}/posts', scope: 'feeds:read', ok: 200 },
    { name: 'GET /stats', scope: 'stats:read', ok: 200 },
  ] as const;

  const cases = endpoints.flatMap((endpoint) => scopeSets.map((scopes) => ({ ...endpoint, scopes })));

  it.each(cases)('$name with [$scopes]', async ({ name, scope, ok, scopes }) => {
    const { guildId, key } = await sb().admin.createScratchServer(scopes);
    const feed = await sb().admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    const [method, template] = name.split(' ') as [string, string];
    const path = template.replace('{id}', String(feed.id));
    const res = await sb().call(method, path, {
      key,
      body: method === 'POST' ? { cuenta: 'natgeo', canalId: CHANNEL, tipos: ['reel'] } : undefined,
    });
    expectRateHeaders(res);
    if (scopes.includes(scope)) {
      expect(res.status).toBe(ok);
    } else {
      expect(res.status).toBe(403);
      const error = expectErrorBody(res, 'missing_scope');
      expect(error.mensaje).toContain(scope);
      // Nothing happened: the feed is still there.
      expect((await sb().admin.listFeeds(guildId)).map((f) => f.id)).toEqual([feed.id]);
    }
  });
});

describe('order of checks', () => {
  it('scope before body validation: POST {} is 403 without feeds:write and 400 with it (the bot’s probe)', async () => {
    const readOnly = await serverWithKey(['feeds:read']);
    const writer = await serverWithKey(['feeds:write']);
    expectErrorBody(await sb().call('POST', '/feeds', { key: readOnly.key, body: {} }), 'missing_scope');
    expectErrorBody(await sb().call('POST', '/feeds', { key: writer.key, body: {} }), 'invalid_request');
  });

  it('scope before existence, validation before existence', async () => {
    const statsOnly = await serverWithKey(['stats:read']);
    expectErrorBody(await sb().call('GET', '/feeds/2000000000/posts', { key: statsOnly.key }), 'missing_scope');
    const reader = await serverWithKey(['feeds:read']);
    expectErrorBody(await sb().call('GET', '/feeds/2000000000/posts?limite=99', { key: reader.key }), 'invalid_request');
    expectErrorBody(await sb().call('GET', '/feeds/2000000000/posts', { key: reader.key }), 'not_found');
  });

  it('authentication before routing: an unknown path is 401 without a key, 404 with one', async () => {
    const { key } = await serverWithKey();
    expectErrorBody(await sb().call('GET', '/nothing-here'), 'missing_api_key');
    const res = await sb().call('GET', '/nothing-here', { key });
    expect(res.status).toBe(404);
    expectErrorBody(res, 'not_found');
    expectRateHeaders(res);
    expect((await sb().call('PUT', '/feeds', { key, body: {} })).status).toBe(404);
  });
});

describe('error table: 500', () => {
  it('an internal failure is a 500 JSON error with the rate headers and no internals', async () => {
    const broken = await startTestSandbox();
    try {
      const { key } = await broken.admin.createScratchServer(ALL_SCOPES);
      // Break the database under the running sandbox, as a failing disk or a bad migration would.
      const { Db } = await import('../src/db.js');
      const db = await Db.open(`${broken.dataDir}/sandbox.db`);
      await db.exec('DROP TABLE posts');
      await db.close();
      const res = await broken.call('GET', '/stats', { key });
      expect(res.status).toBe(500);
      expectErrorBody(res, 'internal_error');
      expectRateHeaders(res);
      expect(res.text).not.toMatch(/SQLITE|posts|no such table/i);
      // Routes that do not need the broken table still answer.
      expect((await broken.call('GET', '/health')).status).toBe(200);
    } finally {
      await broken.dispose();
    }
  });
});
