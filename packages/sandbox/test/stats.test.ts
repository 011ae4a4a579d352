/**
 * /stats arithmetic ("today" from 00:00 UTC, "this week" from Monday 00:00 UTC, counted by
 * publicadoDiscord), the simulator and the deterministic seed.
 */
import { describe, expect, it } from 'vitest';
import { PostsResponseSchema, StatsSchema } from '@feedbot/feed-api-contract';
import { DEMO_FREE_GUILD_ID, DEMO_GUILD_ID, ManualClock, startOfUtcDay, startOfUtcIsoWeek } from '../src/index.js';
import { test, type SandboxFixtures } from './fixtures.js';
import { ALL_SCOPES, CHANNEL } from './helpers.js';

const iso = (s: string) => new Date(s).toISOString();

describe('UTC day and ISO week', () => {
  it.each([
    ['2026-03-04T10:00:00.000Z', '2026-03-04T00:00:00.000Z', '2026-03-02T00:00:00.000Z'], // Wednesday
    ['2026-03-02T00:00:00.000Z', '2026-03-02T00:00:00.000Z', '2026-03-02T00:00:00.000Z'], // Monday, midnight
    ['2026-03-08T23:59:59.999Z', '2026-03-08T00:00:00.000Z', '2026-03-02T00:00:00.000Z'], // Sunday, last instant
    ['2027-01-01T12:00:00.000Z', '2027-01-01T00:00:00.000Z', '2026-12-28T00:00:00.000Z'], // week across the year
  ])('%s → day %s, week %s', (now, day, week) => {
    expect(new Date(startOfUtcDay(Date.parse(now))).toISOString()).toBe(day);
    expect(new Date(startOfUtcIsoWeek(Date.parse(now))).toISOString()).toBe(week);
  });
});

describe('GET /stats arithmetic', () => {
  test('counts today and this week at the boundaries, picks the most active account, follows deletes and time', async ({ startSandbox }) => {
    const clock = new ManualClock(Date.parse('2026-03-04T10:00:00.000Z')); // a Wednesday
    const sb = await startSandbox({ clock, rateLimit: { limit: 1000 } });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const alpha = await sb.admin.createFeed(guildId, { cuenta: 'alpha', canalId: CHANNEL, tipos: ['post'] });
    const beta = await sb.admin.createFeed(guildId, { cuenta: 'beta', canalId: CHANNEL, tipos: ['post'] });
    const gamma = await sb.admin.createFeed(guildId, { cuenta: 'gamma', canalId: CHANNEL, tipos: ['post'] });
    const add = (feedId: number, at: string) => sb.admin.addPost(guildId, feedId, { publicadoDiscord: iso(at) });

    await add(alpha.id, '2026-03-04T09:59:59.999Z'); // today
    await add(alpha.id, '2026-03-04T00:00:00.000Z'); // today (first instant)
    await add(alpha.id, '2026-03-03T23:59:59.999Z'); // this week, not today
    await add(alpha.id, '2026-03-02T00:00:00.000Z'); // this week (Monday, first instant)
    await add(beta.id, '2026-03-01T23:59:59.999Z'); // last week (Sunday)
    await add(beta.id, '2026-03-04T08:00:00.000Z'); // today
    await add(beta.id, '2026-02-10T08:00:00.000Z'); // long ago
    await add(gamma.id, '2026-03-04T09:00:00.000Z'); // today, on a feed paused afterwards
    await sb.admin.pauseFeed(guildId, gamma.id);

    const stats = async () => {
      const res = await sb.call('GET', '/stats', { key });
      expect(res.status).toBe(200);
      return StatsSchema.parse(res.json);
    };
    expect(await stats()).toEqual({
      servidor: guildId,
      plan: 'server',
      feedsActivos: 2,
      feedsPausados: 1,
      postsHoy: 4,
      postsEstaSemana: 6,
      cuentaMasActiva: 'alpha',
      ultimaActividad: '2026-03-04T09:59:59.999Z',
    });

    // Deleting a feed removes its posts from the numbers; beta and gamma tie at one post this
    // week, and gamma posted last.
    expect((await sb.call('DELETE', `/feeds/${alpha.id}`, { key })).status).toBe(200);
    expect(await stats()).toMatchObject({ feedsActivos: 1, feedsPausados: 1, postsHoy: 2, postsEstaSemana: 2, cuentaMasActiva: 'gamma', ultimaActividad: '2026-03-04T09:00:00.000Z' });

    // Next day: nothing today, still this week.
    clock.set(Date.parse('2026-03-05T00:00:00.000Z'));
    expect(await stats()).toMatchObject({ postsHoy: 0, postsEstaSemana: 2, cuentaMasActiva: 'gamma' });

    // Next Monday: a new week; the last activity stays what it was.
    clock.set(Date.parse('2026-03-09T00:00:00.000Z'));
    expect(await stats()).toMatchObject({ postsHoy: 0, postsEstaSemana: 0, cuentaMasActiva: null, ultimaActividad: '2026-03-04T09:00:00.000Z' });

    await sb.admin.resumeFeed(guildId, gamma.id);
    expect(await stats()).toMatchObject({ feedsActivos: 2, feedsPausados: 0 });
  });

  test('groups the most active account across feeds of the same account (case-insensitive)', async ({ startSandbox }) => {
    const clock = new ManualClock(Date.parse('2026-03-04T10:00:00.000Z'));
    const sb = await startSandbox({ clock });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const nasa1 = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    const nasa2 = await sb.admin.createFeed(guildId, { cuenta: 'NASA', canalId: '1100000000000000043', tipos: ['post'] });
    const esa = await sb.admin.createFeed(guildId, { cuenta: 'esa', canalId: CHANNEL, tipos: ['post'] });
    await sb.admin.addPost(guildId, nasa1.id, { publicadoDiscord: '2026-03-04T01:00:00.000Z' });
    await sb.admin.addPost(guildId, nasa2.id, { publicadoDiscord: '2026-03-04T02:00:00.000Z' });
    await sb.admin.addPost(guildId, esa.id, { publicadoDiscord: '2026-03-04T03:00:00.000Z' });
    const stats = StatsSchema.parse((await sb.call('GET', '/stats', { key })).json);
    expect(stats.cuentaMasActiva?.toLowerCase()).toBe('nasa');
    expect(stats.postsHoy).toBe(3);
  });
});

describe('simulator', () => {
  test('forwards posts for active feeds only, visible in posts and stats', async ({ startSandbox }) => {
    const clock = new ManualClock(Date.parse('2026-03-04T10:00:00.000Z'));
    const sb = await startSandbox({ clock });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const active = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['reel', 'story'] });
    const paused = await sb.admin.createFeed(guildId, { cuenta: 'esa', canalId: CHANNEL, tipos: ['post'] });
    await sb.admin.pauseFeed(guildId, paused.id);

    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      const created = await sb.admin.simulateTick({ everyFeed: true });
      expect(created.filter((p) => p.guildId === guildId).map((p) => p.feedId)).toEqual([active.id]);
    }
    const posts = PostsResponseSchema.parse((await sb.call('GET', `/feeds/${active.id}/posts`, { key })).json).posts;
    expect(posts).toHaveLength(3);
    expect(posts.every((p) => p.tipo === 'reel' || p.tipo === 'story')).toBe(true);
    expect(posts[0]?.publicadoDiscord).toBe('2026-03-04T10:03:00.000Z');
    expect(Date.parse(posts[0]!.publicadoEn)).toBeLessThan(Date.parse(posts[0]!.publicadoDiscord));
    expect(PostsResponseSchema.parse((await sb.call('GET', `/feeds/${paused.id}/posts`, { key })).json).posts).toEqual([]);
    expect(StatsSchema.parse((await sb.call('GET', '/stats', { key })).json)).toMatchObject({ postsHoy: 3, cuentaMasActiva: 'nasa' });
  });

  test('runs on its own timer when asked', async ({ startSandbox }) => {
    const sb = await startSandbox({ simulate: { intervalMs: 20, probability: 1 } });
    const { guildId } = await sb.admin.createScratchServer(ALL_SCOPES);
    const feed = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    await expect.poll(async () => (await sb.admin.listFeeds(guildId)).find((f) => f.id === feed.id)?.ultimoPost ?? null, { timeout: 5000 }).not.toBeNull();
  });
});

describe('deterministic seed', () => {
  async function seededSnapshot(startSandbox: SandboxFixtures['startSandbox'], seed: number) {
    const clock = new ManualClock(Date.parse('2026-03-04T10:00:00.000Z'));
    const sb = await startSandbox({ clock, seed });
    const key = await sb.admin.generateKey(DEMO_GUILD_ID, ALL_SCOPES);
    const feeds = (await sb.call('GET', '/feeds', { key })).json as { feeds: { id: number }[] };
    const posts = [];
    for (const feed of feeds.feeds) {
      const res = (await sb.call('GET', `/feeds/${feed.id}/posts?limite=50`, { key })).json as { posts: { mediaUrl: string; postUrl: string }[] };
      posts.push(res.posts.map((p) => ({ ...p, mediaUrl: new URL(p.mediaUrl).pathname, postUrl: new URL(p.postUrl).pathname })));
    }
    const stats = (await sb.call('GET', '/stats', { key })).json;
    return { sb, feeds, posts, stats };
  }

  test('the same seed and clock give the same data; another seed gives other posts', async ({ startSandbox }) => {
    const a = await seededSnapshot(startSandbox, 7);
    const b = await seededSnapshot(startSandbox, 7);
    const c = await seededSnapshot(startSandbox, 8);
    expect(b.feeds).toEqual(a.feeds);
    expect(b.posts).toEqual(a.posts);
    expect(b.stats).toEqual(a.stats);
    expect(c.posts).not.toEqual(a.posts);
    expect(a.sb.seed).toMatchObject({ seeded: true, feeds: 5 });
    // The demo guild has active and paused feeds and posts today; the free guild exists too.
    expect(a.stats).toMatchObject({ servidor: DEMO_GUILD_ID, plan: 'server', feedsActivos: 3, feedsPausados: 1 });
    expect((a.stats as { postsHoy: number }).postsHoy).toBeGreaterThan(0);
    expect((await a.sb.admin.getServer(DEMO_FREE_GUILD_ID))?.plan).toBe('free');
  });
});
