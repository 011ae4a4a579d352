/**
 * docs/openapi.json is generated from the contract schemas; the committed file must match the
 * generator byte for byte (`npm run openapi` rewrites it).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderOpenApiDocument } from '@feedbot/feed-api-contract/openapi';

const COMMITTED = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

describe('docs/openapi.json', () => {
  it('is up to date (run `npm run openapi` if this fails)', async () => {
    expect(await readFile(COMMITTED, 'utf8')).toBe(renderOpenApiDocument());
  });
});
