/**
 * The OpenAPI document generated from the contract schemas (zod-openapi) describes every route of
 * the contract with its scope, statuses and rate headers.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, SCOPES } from '@feedbot/feed-api-contract';
import { buildOpenApiDocument } from '@feedbot/feed-api-contract/openapi';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { security: Record<string, string[]>[]; responses: Record<string, unknown>; parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
  components: { schemas: Record<string, unknown>; headers: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
};

describe('OpenAPI document', () => {
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

