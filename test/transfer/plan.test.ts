/** What an import would do: created, already present (skipped), invalid with its reason. */
import { describe, expect, it } from 'vitest';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { readImportFile } from '../../src/transfer/format.js';
import { planImport, refreshPlan } from '../../src/transfer/plan.js';

const C1 = '1300000000000000001';
const C2 = '1300000000000000002';
const GONE = '1300000000000000099';

const existing = (id: number, cuenta: string, canal: string): FeedListItem => ({ id, cuenta, canal, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: null });

function rows(...feeds: object[]) {
  return readImportFile(JSON.stringify({ format: 'feedbot-feeds', version: 1, feeds }), 'json');
}

describe('planImport', () => {
  it('sorts every row: to create, present, missing channel, duplicate in the file, invalid', () => {
    const plan = planImport(
      rows(
        { cuenta: 'nasa', canal: C1, tipos: ['post'] },
        { cuenta: 'ESA', canal: C1, tipos: ['reel'] },
        { cuenta: 'jaxa', canal: GONE, tipos: ['post'] },
        { cuenta: 'NASA', canal: C1, tipos: ['story'] },
        { cuenta: 'nasa', canal: C2, tipos: ['post'], filtros: 3, estado: 'pausado' },
        { cuenta: '', canal: C1, tipos: ['post'] },
      ),
      [existing(7, 'esa', C1)],
      new Set([C1, C2]),
    );
    expect(plan.create.map((f) => [f.row, f.cuenta, f.canalId])).toEqual([
      [1, 'nasa', C1],
      [5, 'nasa', C2],
    ]);
    expect(plan.present.map(({ feed, existingId }) => [feed.row, existingId])).toEqual([[2, 7]]);
    expect(plan.invalid.map((p) => [p.row, p.key, p.vars])).toEqual([
      [3, 'transfer.invalid.channelMissing', { channel: GONE }],
      [4, 'transfer.invalid.duplicate', { first: 1 }],
      [6, 'transfer.invalid.cuenta', {}],
    ]);
    expect(plan.notes).toEqual({ withFilters: 1, notActive: 1 });
  });

  it('refreshPlan moves rows created meanwhile to present', () => {
    const plan = planImport(rows({ cuenta: 'a', canal: C1, tipos: ['post'] }, { cuenta: 'b', canal: C1, tipos: ['post'] }), [], new Set([C1]));
    const fresh = refreshPlan(plan, [existing(9, 'B', C1)]);
    expect(fresh.create.map((f) => f.cuenta)).toEqual(['a']);
    expect(fresh.present.map(({ feed, existingId }) => [feed.cuenta, existingId])).toEqual([['b', 9]]);
    expect(plan.create).toHaveLength(2);
  });
});
