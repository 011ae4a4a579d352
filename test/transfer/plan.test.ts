/** What an import would do: created, already present (skipped), invalid with its reason. */
import { describe, expect, it } from 'vitest';
import { ChannelType } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { readImportFile } from '../../src/transfer/format.js';
import { planImport, refreshPlan } from '../../src/transfer/plan.js';

const C1 = '1300000000000000001';
const C2 = '1300000000000000002';
const GONE = '1300000000000000099';
const VOICE = '1300000000000000003';
const CATEGORY = '1300000000000000004';
const NEWS = '1300000000000000005';
const THREAD = '1300000000000000006';
const UNTYPED = '1300000000000000007';

/** The guild's channels: text ones unless said otherwise. */
const channels = (ids: string[], others: [string, ChannelType | undefined][] = []) => new Map([...ids.map((id) => [id, ChannelType.GuildText] as const), ...others]);

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
      channels([C1, C2]),
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

  it('forwards only into text and announcement channels, as /feed create: categories, voice channels, threads and untyped ones are refused', () => {
    const plan = planImport(
      rows(...[C1, NEWS, VOICE, CATEGORY, THREAD, UNTYPED].map((canal) => ({ cuenta: 'nasa', canal, tipos: ['post'] }))),
      [],
      channels([C1], [
        [NEWS, ChannelType.GuildAnnouncement],
        [VOICE, ChannelType.GuildVoice],
        [CATEGORY, ChannelType.GuildCategory],
        [THREAD, ChannelType.PublicThread],
        [UNTYPED, undefined],
      ]),
    );
    expect(plan.create.map((f) => f.canalId)).toEqual([C1, NEWS]);
    expect(plan.invalid.map((p) => [p.row, p.key, p.vars])).toEqual(
      [VOICE, CATEGORY, THREAD, UNTYPED].map((channel, i) => [i + 3, 'transfer.invalid.channelType', { channel }]),
    );
  });

  it('keeps little of a row\'s free text: a long label or state is shortened, and a shortened state is never `activo`', () => {
    const parsed = rows({ cuenta: 'x'.repeat(300), canal: C1, tipos: ['post'] }, { cuenta: 'nasa', canal: C1, tipos: ['post'], estado: `activo.${'x'.repeat(200)}` });
    const [bad, good] = parsed;
    expect(bad!.ok ? undefined : bad!.problem.label).toHaveLength(100);
    expect(good!.ok ? good!.feed.estado : undefined).toHaveLength(100);
    expect(planImport(parsed, [], channels([C1])).notes.notActive).toBe(1);
  });

  it('refreshPlan moves rows created meanwhile to present', () => {
    const plan = planImport(rows({ cuenta: 'a', canal: C1, tipos: ['post'] }, { cuenta: 'b', canal: C1, tipos: ['post'] }), [], channels([C1]));
    const fresh = refreshPlan(plan, [existing(9, 'B', C1)]);
    expect(fresh.create.map((f) => f.cuenta)).toEqual(['a']);
    expect(fresh.present.map(({ feed, existingId }) => [feed.cuenta, existingId])).toEqual([['b', 9]]);
    expect(plan.create).toHaveLength(2);
  });
});
