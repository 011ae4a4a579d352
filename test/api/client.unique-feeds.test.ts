/**
 * GET /feeds listing one id twice: the client keeps the first of each id (and counts it once in
 * `total`) where the answer is read, before the cache keeps it, and logs the repeated ids once
 * per answer — so every reader of the list, cached or not, sees each feed once.
 */
import { describe, expect } from 'vitest';
import { uniqueFeeds } from '../../src/api/unique-feeds.js';
import { apiTest as it, callCount } from './fixtures.js';
import { AUTH, BASE_PATH, FEED_LIST, GUILD } from './helpers.js';

const first = FEED_LIST.feeds[0]!;
const feed = (id: number, cuenta: string) => ({ ...first, id, cuenta });
/** #1 three times (each a different account), #2 twice: the API's total counts all five. */
const REPEATED = { feeds: [feed(1, 'nasa'), feed(2, 'esa'), feed(1, 'copy'), feed(2, 'copy'), feed(1, 'again')], total: 5, plan: 'server' };

describe('uniqueFeeds', () => {
  it('keeps the first feed of each id, in order, and takes the dropped ones off total', () => {
    const { list, repeatedIds } = uniqueFeeds(REPEATED);
    expect(list).toEqual({ feeds: [feed(1, 'nasa'), feed(2, 'esa')], total: 2, plan: 'server' });
    expect(repeatedIds).toEqual([1, 2]);
  });

  it('returns a list without repeats as it is', () => {
    const { list, repeatedIds } = uniqueFeeds(FEED_LIST);
    expect(list).toBe(FEED_LIST);
    expect(repeatedIds).toEqual([]);
  });

  it('never takes total below zero (an API whose total disagrees with its list)', () => {
    expect(uniqueFeeds({ ...REPEATED, total: 1 }).list.total).toBe(0);
  });
});

describe('listFeeds with a repeated id', () => {
  it('answers each id once, the cache keeps the de-duplicated list, and the repeat is logged', async ({ makeClient, pool, agent, log }) => {
    const client = makeClient({ logger: log.logger });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, REPEATED);
    const expected = { feeds: [feed(1, 'nasa'), feed(2, 'esa')], total: 2, plan: 'server' };
    await expect(client.listFeeds(AUTH)).resolves.toEqual(expected);
    // From the cache: no second request, the same list (autocomplete reads it too).
    await expect(client.listFeeds(AUTH)).resolves.toEqual(expected);
    await expect(client.cachedFeeds(GUILD)).resolves.toEqual(expected);
    expect(callCount(agent)).toBe(1);
    const warnings = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40);
    expect(warnings).toEqual([expect.objectContaining({ guildId: GUILD, repeatedIds: [1, 2] })]);
  });
});
