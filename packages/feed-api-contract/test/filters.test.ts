/**
 * Filters have no specified structure, so the contract bounds their size: a hostile filter nested
 * 20,000 levels deep (well under any body limit) is refused as invalid input, not a crash.
 */
import { describe, expect, it } from 'vitest';
import { CreateFeedRequestSchema, MAX_FILTER_DEPTH, MAX_FILTER_NODES, jsonShape } from '@feedbot/feed-api-contract';

const request = (filtro: unknown) => ({ cuenta: 'nasa', canalId: '1100000000000000042', tipos: ['post'], filtros: [filtro] });
const nested = (levels: number): unknown => JSON.parse(`{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`);

describe('filters in the contract', () => {
  it('measures depth and size without recursion, even 20,000 levels deep', () => {
    expect(jsonShape({ a: { b: [1, 2] } })).toEqual({ depth: 4, nodes: 5 });
    expect(jsonShape(nested(20_000)).depth).toBeGreaterThan(MAX_FILTER_DEPTH);
  });

  it(`accepts filters up to ${MAX_FILTER_DEPTH} levels and ${MAX_FILTER_NODES} values`, () => {
    expect(CreateFeedRequestSchema.safeParse(request({ palabras: ['cohete', 'luna'], excluir: { hashtags: ['spam'] } })).success).toBe(true);
    expect(CreateFeedRequestSchema.safeParse(request(nested(MAX_FILTER_DEPTH - 2))).success).toBe(true);
  });

  it('refuses deeper or larger filters with a message saying which bound', () => {
    const deep = CreateFeedRequestSchema.safeParse(request(nested(20_000)));
    expect(deep.success).toBe(false);
    expect(deep.error?.issues[0]).toMatchObject({ path: ['filtros', 0], message: expect.stringMatching(/at most 8 levels/) });
    const wide = CreateFeedRequestSchema.safeParse(request({ a: Array.from({ length: MAX_FILTER_NODES }, (_, i) => i) }));
    expect(wide.error?.issues[0]?.message).toMatch(/at most 500 values/);
  });
});
