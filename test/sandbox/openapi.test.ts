/**
 * docs/openapi.json is generated from the contract schemas (zod-openapi); it must match the
 * generator byte for byte, describe every route of the contract, and be what the sandbox serves.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, SCOPES } from '../../src/contract/feed-api.js';
import { buildOpenApiDocument, renderOpenApiDocument } from '../../src/contract/openapi.js';
import { expectRateHeaders, startTestSandbox, type TestSandbox } from './helpers.js';

const COMMITTED = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { security: Record<string, string[]>[]; responses: Record<string, unknown>; parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
  components: { schemas: Record<string, unknown>; headers: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
};

describe('OpenAPI document', () => {
  it('docs/openapi.json is up to date (run `npm run openapi` if this fails)', async () => {
    const committed = await readFile(COMMITTED, 'utf8');
    expect(committed).toBe(renderOpenApiDocument());
  });

  it('is OpenAPI 3.1 and describes every contract route with its scope, statuses and rate headers', () => {
    const doc = buildOpenApiDocument() as unknown as Doc;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [name, route] of Object.entries(ROUTES)) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, name).toBeDefined();
      expect(operation!.security).toEqual([{ bearerApiKey: [route.scope] }]);
      const statuses = Object.keys(operation!.responses);
      expect(statuses).toEqual(expect.arrayContaining([String(route.successStatus), '401', '403', '429', '500']));
      const success = operation!.responses[String(route.successStatus)] as { headers: Record<string, unknown> };
      expect(Object.keys(success.headers)).toEqual(['X-RateLimit-Remaining', 'X-RateLimit-Reset']);
      if ('pathParams' in route) expect(statuses).toContain('404');
      if ('body' in route) expect(operation!.requestBody).toBeDefined();
    }
    const posts = doc.paths['/feeds/{id}/posts']!.get!;
    expect(posts.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:limite', 'query:tipo']);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['FeedList', 'FeedListItem', 'CreateFeedRequest', 'CreatedFeed', 'DeleteFeedResult', 'PostList', 'Post', 'Stats', 'Error']),
    );
    expect(JSON.stringify(doc)).toContain(SCOPES.join(', ').replaceAll(', ', '`, `'));
  });
});

describe('served by the sandbox', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb?.dispose();
  });

  it('GET /openapi.json needs no key and returns the committed document', async () => {
    const res = await sb.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectRateHeaders(res);
    expect(res.json).toEqual(JSON.parse(await readFile(COMMITTED, 'utf8')));
  });
});
