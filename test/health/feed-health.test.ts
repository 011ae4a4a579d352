/**
 * The health rules and the list filters as pure functions: what is marked, in which words, and
 * which filter an empty answer blames.
 */
import { describe, expect, it } from 'vitest';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { feedWarnings, warningText, type HealthView } from '../../src/health/feed-health.js';
import { filterFeeds, parseAccountFilter, parseStateFilter } from '../../commands/feed/list-filter.js';
import { stateChoices } from '../../src/health/state-autocomplete.js';
import { translator } from '../../src/i18n/index.js';
import { InvalidOptionError } from '../../src/interactions/errors.js';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const DAY = 86_400_000;
const HERE = '1300000000000000001';
const GONE = '1300000000000000009';

const feed = (overrides: Partial<FeedListItem> = {}): FeedListItem => ({
  id: 1,
  cuenta: 'nasa',
  canal: HERE,
  estado: 'activo',
  tipos: ['post'],
  filtros: 0,
  ultimoPost: new Date(NOW - DAY).toISOString(),
  ...overrides,
});

const view = (overrides: Partial<HealthView> = {}): HealthView => ({
  channelExists: (id) => id === HERE,
  now: NOW,
  staleAfterDays: 7,
  ...overrides,
});

describe('feedWarnings', () => {
  it('finds nothing wrong with an active feed that posted yesterday into a channel that exists', () => {
    expect(feedWarnings(feed(), view())).toEqual([]);
  });

  it('marks a channel the list does not have, and nothing when the list is unknown', () => {
    expect(feedWarnings(feed({ canal: GONE }), view())).toEqual(['channelMissing']);
    expect(feedWarnings(feed({ canal: GONE }), view({ channelExists: () => undefined }))).toEqual([]);
  });

  it('counts staleness from ultimoPost against the threshold', () => {
    const at = (days: number) => feed({ ultimoPost: new Date(NOW - days * DAY).toISOString() });
    expect(feedWarnings(at(7), view())).toEqual([]);
    expect(feedWarnings(at(7.01), view())).toEqual(['stale']);
    expect(feedWarnings(at(3), view({ staleAfterDays: 2 }))).toEqual(['stale']);
    expect(feedWarnings(at(300), view({ staleAfterDays: 365 }))).toEqual([]);
  });

  it('does not call a feed that never posted, or whose date is unreadable, stale', () => {
    expect(feedWarnings(feed({ ultimoPost: null }), view())).toEqual([]);
    expect(feedWarnings(feed({ ultimoPost: 'yesterday' }), view())).toEqual([]);
  });

  it('marks any state but activo as inactive, without also calling it stale', () => {
    const old = new Date(NOW - 30 * DAY).toISOString();
    expect(feedWarnings(feed({ estado: 'pausado', ultimoPost: old }), view())).toEqual(['inactive']);
    expect(feedWarnings(feed({ estado: 'en_revision' }), view())).toEqual(['inactive']);
    expect(feedWarnings(feed({ estado: 'pausado', canal: GONE }), view())).toEqual(['channelMissing', 'inactive']);
  });
});

describe('warningText', () => {
  it('is icon and words, in a stable order, in both languages; undefined when healthy', () => {
    expect(warningText(translator('en'), [])).toBeUndefined();
    expect(warningText(translator('en'), ['inactive', 'channelMissing'])).toBe('⚠️ Channel deleted · ⏸️ Not active');
    expect(warningText(translator('en'), ['stale'], 14)).toBe('⏳ No post for over 14 days');
    expect(warningText(translator('es'), ['channelMissing', 'stale'])).toBe('⚠️ Canal eliminado · ⏳ Sin publicaciones desde hace más de 7 días');
  });
});

describe('filterFeeds', () => {
  const feeds = [
    feed({ id: 1, cuenta: 'NASA', canal: HERE }),
    feed({ id: 2, cuenta: 'esa', canal: HERE, estado: 'pausado' }),
    feed({ id: 3, cuenta: 'nasa_jpl', canal: GONE }),
  ];
  const ids = (filters: Parameters<typeof filterFeeds>[1]) => filterFeeds(feeds, filters, view()).rows.map((r) => r.feed.id);

  it('applies each filter alone', () => {
    expect(ids({})).toEqual([1, 2, 3]);
    expect(ids({ channelId: HERE })).toEqual([1, 2]);
    expect(ids({ cuenta: 'nasa' })).toEqual([1, 3]);
    expect(ids({ estado: 'pausado' })).toEqual([2]);
    expect(ids({ problemas: true })).toEqual([2, 3]);
    expect(ids({ problemas: false })).toEqual([1, 2, 3]);
  });

  it('combines them', () => {
    expect(ids({ channelId: HERE, problemas: true })).toEqual([2]);
    expect(ids({ cuenta: 'nasa', problemas: true })).toEqual([3]);
    expect(ids({ channelId: GONE, cuenta: 'jpl', estado: 'activo', problemas: true })).toEqual([3]);
  });

  it('names the filter that left nothing, and what the others match without it', () => {
    expect(filterFeeds(feeds, { estado: 'borrador' }, view())).toEqual({ rows: [], emptiedBy: 'estado', matchWithout: 0 });
    expect(filterFeeds(feeds, { channelId: HERE, cuenta: 'jpl' }, view())).toMatchObject({ emptiedBy: 'cuenta', matchWithout: 2 });
    expect(filterFeeds(feeds, { cuenta: 'esa', problemas: true, estado: 'activo' }, view())).toMatchObject({ emptiedBy: 'estado', matchWithout: 1 });
    expect(filterFeeds([], { estado: 'activo' }, view())).toEqual({ rows: [], matchWithout: 0 });
  });

  it('judges no health without a view', () => {
    expect(filterFeeds(feeds, { problemas: true }, undefined)).toMatchObject({ rows: [], emptiedBy: 'problemas' });
  });
});

describe('filter options', () => {
  it('reads a state by its API value or its label in either language, and keeps unknown ones', () => {
    expect(['activo', 'Active', ' ACTIVO ', 'activo'].map(parseStateFilter)).toEqual(['activo', 'activo', 'activo', 'activo']);
    expect(['Paused', 'pausado', 'En pausa'].map(parseStateFilter)).toEqual(['pausado', 'pausado', 'pausado']);
    expect(parseStateFilter('En_Revision')).toBe('en_revision');
  });

  it('refuses a state that a page button could not carry', () => {
    for (const bad of ['en revisión', 'x'.repeat(21), '-', 'a:b']) expect(() => parseStateFilter(bad)).toThrow(InvalidOptionError);
  });

  it('reads an account like /feed create does, lowercase', () => {
    expect(['NASA', '@nasa', 'https://www.instagram.com/NASA/'].map(parseAccountFilter)).toEqual(['nasa', 'nasa', 'nasa']);
    expect(() => parseAccountFilter('not an account')).toThrow(InvalidOptionError);
  });

  it('suggests the known states and those the list shows, labelled, matched on what was typed', () => {
    expect(stateChoices(translator('en'), [], '')).toEqual([
      { name: 'Active (activo)', value: 'activo' },
      { name: 'Paused (pausado)', value: 'pausado' },
    ]);
    expect(stateChoices(translator('es'), ['activo', 'En_Revision', 'con espacios'], 'rev')).toEqual([{ name: 'en_revision', value: 'en_revision' }]);
    expect(stateChoices(translator('es'), [], 'paus')).toEqual([{ name: 'En pausa (pausado)', value: 'pausado' }]);
  });
});
