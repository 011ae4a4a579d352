/**
 * The sandbox serves the contract's OpenAPI document at /openapi.json, without a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApiDocument } from '@feedbot/feed-api-contract/openapi';
import { expectRateHeaders, startTestSandbox, type TestSandbox } from './helpers.js';

describe('served by the sandbox', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb?.dispose();
  });

  it('GET /openapi.json needs no key and returns the document generated from the contract', async () => {
    const res = await sb.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectRateHeaders(res);
    expect(res.json).toEqual(JSON.parse(renderOpenApiDocument()));
  });
});
