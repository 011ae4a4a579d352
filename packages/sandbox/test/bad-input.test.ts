/**
 * Bad input, property-based (fast-check): malformed bodies, ids, query strings, headers, paths
 * and oversized payloads. Whatever arrives, the sandbox answers below 500, in JSON, with both
 * rate-limit headers, never shows server A's data to server B's key, and keeps running.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedRecord } from '../src/index.js';
import { ALL_SCOPES, CHANNEL, type ApiResponse, type TestSandbox, startTestSandbox } from './helpers.js';

const RUNS = 120;
const ALLOWED = new Set([200, 201, 400, 401, 403, 404, 429]);
const VICTIM_MARKERS = ['victima_secreta', 'CAPTION_PRIVADO_DE_A'];

let sb: TestSandbox;
let victim: { guildId: string; key: string; feeds: FeedRecord[]; postCode: string };
let attacker: { guildId: string; key: string; feedId: number };

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: { limit: 1_000_000 } });
  const a = await sb.admin.createScratchServer(ALL_SCOPES);
  const feedA = await sb.admin.createFeed(a.guildId, { cuenta: 'victima_secreta', canalId: CHANNEL, tipos: ['post', 'reel'] });
  const post = await sb.admin.addPost(a.guildId, feedA.id, { caption: 'CAPTION_PRIVADO_DE_A' });
  victim = { ...a, feeds: await sb.admin.listFeeds(a.guildId), postCode: post.code };
  const b = await sb.admin.createScratchServer(ALL_SCOPES);
  const feedB = await sb.admin.createFeed(b.guildId, { cuenta: 'atacante', canalId: CHANNEL, tipos: ['post'] });
  await sb.admin.addPost(b.guildId, feedB.id);
  attacker = { ...b, feedId: feedB.id };
});

afterAll(async () => {
  await sb?.dispose();
});

afterEach(async () => {
  // Still alive, and A's data untouched.
  expect((await sb.call('GET', '/health')).status).toBe(200);
  expect(await sb.admin.listFeeds(victim.guildId)).toEqual(victim.feeds);
});

/** The invariants every answer must satisfy. */
function checkResponse(res: ApiResponse, method = 'GET'): void {
  expect(res.status, res.text.slice(0, 200)).toBeLessThan(500);
  expect(ALLOWED.has(res.status), `status ${res.status}`).toBe(true);
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  if (method !== 'HEAD') {
    expect(res.json, res.text.slice(0, 200)).toBeDefined();
    if (res.status >= 400) {
      const error = (res.json as { error?: { codigo?: unknown; mensaje?: unknown } }).error;
      expect(typeof error?.codigo).toBe('string');
      expect(typeof error?.mensaje).toBe('string');
    }
  }
  for (const marker of [...VICTIM_MARKERS, victim.guildId, victim.postCode]) expect(res.text).not.toContain(marker);
}

/** Header values undici will send (no CR, LF or NUL; latin1 only). */
const headerValue = fc.string({ maxLength: 60 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s));
const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((n) => !['content-length', 'host', 'connection', 'transfer-encoding', 'upgrade', 'keep-alive', 'expect', 'te', 'trailer'].includes(n));
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream', 'APPLICATION/JSON');

const feedLike = fc.record(
  {
    cuenta: fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null), fc.constant('victima_secreta')),
    canalId: fc.oneof(fc.stringMatching(/^\d{15,22}$/), fc.string({ maxLength: 25 }), fc.integer(), fc.constant(CHANNEL)),
    tipos: fc.oneof(fc.array(fc.constantFrom('post', 'reel', 'story', 'video', '', 'POST'), { maxLength: 5 }), fc.string(), fc.constant(null)),
    filtros: fc.oneof(fc.array(fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), fc.jsonValue({ maxDepth: 1 })), { maxLength: 25 }), fc.jsonValue({ maxDepth: 1 })),
  },
  { requiredKeys: [] },
);

describe('bad input never breaks the sandbox', () => {
  it('malformed POST /feeds bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          feedLike.map((o) => JSON.stringify(o)),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 200 }),
          fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
          fc.constantFrom('', '{', '{"cuenta":', 'null', '[]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '\u0000', '{"a":1}{"b":2}'),
        ),
        fc.option(contentType, { nil: undefined }),
        async (body, type) => {
          const res = await sb.call('POST', '/feeds', { key: attacker.key, body, contentType: type ?? null });
          checkResponse(res);
          if (res.status === 201) expect((res.json as { estado: string }).estado).toBe('activo');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('malformed and foreign feed ids', async () => {
    const victimIds = victim.feeds.map((f) => String(f.id));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 30 }).map(encodeURIComponent),
          fc.integer().map(String),
          fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
          fc.double().map((d) => encodeURIComponent(String(d))),
          fc.constantFrom(...victimIds, '0', '-0', '00001', '1e3', '0x1', '%00', '%2e%2e', '..', '%E0%A4%A', 'null', 'undefined'),
        ),
        fc.constantFrom('DELETE', 'GET'),
        async (id, method) => {
          const path = method === 'GET' ? `/feeds/${id}/posts` : `/feeds/${id}`;
          const res = await sb.call(method, path, { key: attacker.key });
          checkResponse(res, method);
          if (victimIds.includes(id)) expect(res.status).toBe(404);
        },
      ),
      // Always try the victim's real ids, on top of what fast-check draws.
      { numRuns: RUNS, examples: victimIds.flatMap((id) => [[id, 'GET'], [id, 'DELETE']] as [string, string][]) },
    );
  });

  it('arbitrary query strings', async () => {
    const queryPart = fc.oneof(
      fc.dictionary(
        fc.oneof(fc.constantFrom('limite', 'tipo', '__proto__', 'constructor', 'limite[]', 'tipo[0]'), fc.string({ maxLength: 10 })),
        fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String), fc.constantFrom('50', '51', '0', '10', 'post', 'reel', 'story', '1e1')),
        { maxKeys: 5 },
      ).map((entries) => new URLSearchParams(entries).toString()),
      fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s).replaceAll('%3D', '=').replaceAll('%26', '&')),
      fc.constantFrom('limite=%', 'limite=%%', '&&&', '=', 'limite&tipo', 'limite=1&limite=2', 'tipo=post&tipo=reel', 'limite=' + '9'.repeat(400)),
    );
    await fc.assert(
      fc.asyncProperty(queryPart, fc.constantFrom(`/feeds/${attacker.feedId}/posts`, '/feeds', '/stats'), async (query, path) => {
        const res = await sb.call('GET', `${path}?${query}`, { key: attacker.key });
        checkResponse(res);
      }),
      { numRuns: RUNS },
    );
  });

  it('arbitrary headers, methods and Authorization values', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          headerValue,
          headerValue.map((v) => `Bearer ${v}`),
          fc.stringMatching(/^[0-9A-Za-z]{0,45}$/).map((v) => `Bearer fbk_${v}`),
          fc.constantFrom(`Bearer ${'x'.repeat(4000)}`, 'Bearer', 'bearer  ', 'Basic Og=='),
          fc.constant(undefined),
        ),
        fc.dictionary(headerName, headerValue, { maxKeys: 6 }),
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'),
        fc.constantFrom('/feeds', `/feeds/${attacker.feedId}`, `/feeds/${attacker.feedId}/posts`, '/stats', `/feeds/${victim.feeds[0]!.id}/posts`),
        fc.boolean(),
        async (authorization, extra, method, path, useAttackerKey) => {
          const headers: Record<string, string> = { ...extra };
          if (authorization !== undefined) headers.authorization = authorization;
          if (useAttackerKey) headers.authorization = `Bearer ${attacker.key}`;
          const res = await sb.call(method, path, { headers, body: method === 'POST' || method === 'PUT' || method === 'PATCH' ? '{}' : undefined });
          checkResponse(res, method);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('arbitrary paths', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.webPath(),
          fc.array(fc.string({ maxLength: 12 }).map(encodeURIComponent), { maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
          fc.constantFrom('/feeds/', '//feeds', '/feeds//posts', '/FEEDS', '/feeds/1/posts/', '/media/', '/media/x.png', '/p/', '/p/%00', '/openapi.json/x', `/${'a'.repeat(3000)}`),
        ),
        fc.boolean(),
        async (path, withKey) => {
          const res = await sb.call('GET', path.startsWith('/') ? path : `/${path}`, { key: withKey ? attacker.key : null });
          // Public media and post pages answer images/HTML when they exist; everything else is JSON.
          if (res.status === 200 && !/^application\/json/.test(String(res.headers['content-type']))) {
            expect(path).toMatch(/^\/(media|p)\//);
            return;
          }
          checkResponse(res);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('oversized payloads get 400 body_too_large', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 64 * 1024 + 1, max: 1024 * 1024 }),
        fc.constantFrom('json-string', 'json-array', 'garbage'),
        async (size, kind) => {
          const body =
            kind === 'json-string'
              ? JSON.stringify({ cuenta: 'x'.repeat(size), canalId: CHANNEL, tipos: ['post'] })
              : kind === 'json-array'
                ? JSON.stringify({ cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: Array.from({ length: Math.ceil(size / 8) }, () => ({ a: 1 })) })
                : 'z'.repeat(size);
          const res = await sb.call('POST', '/feeds', { key: attacker.key, body });
          checkResponse(res);
          expect(res.status).toBe(400);
          expect((res.json as { error: { codigo: string } }).error.codigo).toBe('body_too_large');
        },
      ),
      { numRuns: 15 },
    );
  });

  it('JSON nested 20,000 levels deep, anywhere in a body, is answered below 500 (nothing recurses over it)', async () => {
    const deepArray = `${'['.repeat(20_000)}0${']'.repeat(20_000)}`;
    const deepObject = `${'{"a":'.repeat(10_000)}0${'}'.repeat(10_000)}`;
    const feed = (field: string, value: string) => `{"cuenta":"nasa","canalId":"${CHANNEL}","tipos":["post"],"${field}":${value}}`;
    const cases: [string, string, string, number, string | null][] = [
      ['cuenta', 'POST', `{"cuenta":${deepArray},"canalId":"${CHANNEL}","tipos":["post"]}`, 400, 'invalid_request'],
      ['tipos', 'POST', feed('tipos', deepArray), 400, 'invalid_request'],
      ['filtros itself', 'POST', feed('filtros', deepArray), 400, 'invalid_request'],
      ['the whole body, an array', 'POST', deepArray, 400, 'invalid_request'],
      ['the whole body, an object', 'POST', deepObject, 400, 'invalid_request'],
      ['a forbidden key at the bottom', 'POST', `${'{"a":'.repeat(10_000)}{"__proto__":{"x":1}}${'}'.repeat(10_000)}`, 400, 'invalid_json'],
      ['an unknown field (ignored)', 'POST', feed('extra', deepObject).replace('"nasa"', '"nasa_deep"'), 201, null],
      ['a DELETE body', 'DELETE', deepArray, 404, 'not_found'],
    ];
    for (const [where, method, body, status, codigo] of cases) {
      expect(body.length, where).toBeLessThan(64 * 1024);
      const path = method === 'DELETE' ? `/feeds/${attacker.feedId + 1_000_000}` : '/feeds';
      const res = await sb.call(method, path, { key: attacker.key, body });
      checkResponse(res, method);
      expect(res.status, `${where}: ${res.text.slice(0, 200)}`).toBe(status);
      if (codigo) expect((res.json as { error: { codigo: string } }).error.codigo, where).toBe(codigo);
    }
    // Without a key the body is never parsed at all.
    expect((await sb.call('POST', '/feeds', { body: deepArray })).status).toBe(401);
  });

  it('oversized headers get a JSON 400 with the rate-limit headers', async () => {
    for (const size of [17 * 1024, 64 * 1024]) {
      const res = await sb.call('GET', '/feeds', { headers: { 'x-padding': 'p'.repeat(size) } });
      expect(res.status).toBe(400);
      checkResponse(res);
    }
  });
});
