/**
 * The weekly digest: its content from exactly two requests (GET /stats, GET /feeds), posted once a
 * week at its hour whatever number of checks or processes ask, up to 6 hours late and no later.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Observers } from '../../../src/observers.js';
import type { SweepReport } from '../../../src/health/sweep/events.js';
import { SweepStore } from '../../../src/health/sweep/store.js';
import { postDueDigest, type DigestDeps } from '../../../src/health/sweep/digest.js';
import { MemoryLease } from '../../../src/leases/lease-memory.js';
import { SqliteLease } from '../../../src/leases/lease-sqlite.js';
import { dueDigest, isoWeek, nextDigestAt } from '../../../src/health/sweep/weeks.js';
import { countingWeeklyChanges } from '../../../src/health/sweep/weekly-counts.js';
import { TEST_KEY, createBotHarness, rl, type BotHarness } from '../../helpers/bot.js';
import { GUILD_ID } from '../../helpers/discord.js';
import { AUDIT_CHANNEL_ID, answerRest, auditPosts, loadIntoCache, type AuditPostBody, type World } from '../../audit/discord-world.js';
import { sweepDepsOf } from './deps.js';

const FEED_CHANNEL = '1300000000000000001';
const world: World = { guildId: GUILD_ID, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit' }, { id: FEED_CHANNEL, name: 'media' }] };
// Monday 2026-11-23 09:00 UTC: the digest is set for Monday (0) at 9.
const MONDAY_9 = Date.parse('2026-11-23T09:00:00.000Z');
const HOUR = 3_600_000;

describe('the schedule', () => {
  it('is due from its hour to 6 hours later, then skipped until next week', () => {
    expect(isoWeek(MONDAY_9)).toBe('2026-W48');
    expect(dueDigest(0, 9, MONDAY_9 - 1)).toBeUndefined();
    expect(dueDigest(0, 9, MONDAY_9)).toEqual({ at: MONDAY_9, week: '2026-W48' });
    expect(dueDigest(0, 9, MONDAY_9 + 6 * HOUR)?.week).toBe('2026-W48');
    expect(dueDigest(0, 9, MONDAY_9 + 6 * HOUR + 1)).toBeUndefined();
    expect(nextDigestAt(0, 9, MONDAY_9)).toBe(MONDAY_9 + 7 * 24 * HOUR);
    // Sunday 23:00 is still due early on Monday (the previous ISO week's digest).
    expect(dueDigest(6, 23, Date.parse('2026-11-30T02:00:00.000Z'))?.week).toBe('2026-W48');
  });
});

describe('posting', () => {
  let bot: BotHarness;
  let store: SweepStore;
  let deps: DigestDeps;
  let reports: SweepReport[];
  let clock: number;

  beforeEach(async () => {
    bot = await createBotHarness({ transport: 'gateway' });
    await bot.setKey();
    loadIntoCache(bot.discord.client, world);
    answerRest(bot.discord.recorder, world);
    store = await SweepStore.open({ databaseUrl: join(bot.dir, 'keys.sqlite'), logger: pino({ level: 'silent' }) });
    reports = [];
    const observers = new Observers<SweepReport>('test');
    observers.add((r) => reports.push(r));
    clock = MONDAY_9 + 60_000;
    const lease = new MemoryLease(() => clock);
    deps = { ...sweepDepsOf(bot, store, { now: () => clock, reports: observers }), claim: (name, ttl) => lease.claim(name, ttl) };
    await bot.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, auditLocale: 'en-US' }));
    await store.update(GUILD_ID, (c) => ({ next: { ...c, digest: { day: 0, hour: 9 } }, result: undefined }));
  });

  afterEach(async () => {
    await bot.close();
    await store.close();
  });

  const answerBoth = () => {
    bot.api
      .intercept({ path: '/v1/stats', method: 'GET' })
      .reply(200, { servidor: 'x', plan: 'server', feedsActivos: 1, feedsPausados: 1, postsHoy: 3, postsEstaSemana: 42, cuentaMasActiva: 'nasa', ultimaActividad: null }, { headers: rl() });
    bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(
      200,
      {
        feeds: [
          { id: 1, cuenta: 'nasa', canal: FEED_CHANNEL, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: new Date(clock - HOUR).toISOString() },
          { id: 2, cuenta: 'esa', canal: FEED_CHANNEL, estado: 'pausado', tipos: ['post'], filtros: 0, ultimoPost: null },
        ],
        total: 2,
        plan: 'server',
      },
      { headers: rl() },
    );
  };

  it('posts the week’s digest once, from two requests, with the created and deleted counts', async () => {
    const trail = countingWeeklyChanges(bot.audit, store, pino({ level: 'silent' }), () => clock);
    const feed = { id: 9, cuenta: 'x' };
    trail.record(GUILD_ID, { kind: 'feedCreated', actor: { userId: '1' }, feed });
    trail.record(GUILD_ID, { kind: 'feedCreated', actor: { userId: '1' }, feed });
    trail.record(GUILD_ID, { kind: 'feedDeleted', actor: { userId: '1' }, feed });
    await trail.settled();
    answerBoth();
    expect(await postDueDigest(deps, GUILD_ID)).toBe(true);
    clock += HOUR;
    expect(await postDueDigest(deps, GUILD_ID)).toBe(false);
    await bot.audit.flush();
    const digests = auditPosts(bot.discord.recorder).flatMap((c) => (c.body as AuditPostBody).embeds).filter((e) => e.title === 'Weekly digest');
    expect(digests).toHaveLength(1);
    const fields = Object.fromEntries((digests[0]!.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields).toMatchObject({ 'Posts forwarded this week': '42', 'Most active account': '@nasa', Feeds: '1 active · 1 paused', 'This week': '2 created · 1 deleted' });
    expect(fields['1 feed with a warning']).toContain('esa');
    expect(reports.filter((r) => r.type === 'upstream').map((r) => r.type === 'upstream' && r.route).sort()).toEqual(['getStats', 'listFeeds']);
  });

  it('two processes on the shard, each checking at once with its own connection to the lease file: one digest', async () => {
    const leases = [await SqliteLease.open(join(bot.dir, 'keys.sqlite')), await SqliteLease.open(join(bot.dir, 'keys.sqlite'))];
    try {
      answerBoth();
      const posted = await Promise.all(leases.map((lease) => postDueDigest({ ...deps, claim: (name, ttl) => lease.claim(name, ttl) }, GUILD_ID)));
      expect(posted.filter(Boolean)).toHaveLength(1);
      await bot.audit.flush();
      expect(auditPosts(bot.discord.recorder).flatMap((c) => (c.body as AuditPostBody).embeds).filter((e) => e.title === 'Weekly digest')).toHaveLength(1);
    } finally {
      for (const lease of leases) await lease.close();
    }
  });

  it('a clock set back a week posts no digest for the earlier week, without a request; the next week posts', async () => {
    answerBoth();
    expect(await postDueDigest(deps, GUILD_ID)).toBe(true);
    const requests = reports.length;
    clock -= 7 * 24 * HOUR;
    expect(await postDueDigest(deps, GUILD_ID)).toBe(false);
    expect(reports).toHaveLength(requests);
    clock += 14 * 24 * HOUR;
    answerBoth();
    expect(await postDueDigest(deps, GUILD_ID)).toBe(true);
    await bot.audit.flush();
    expect(auditPosts(bot.discord.recorder).flatMap((c) => (c.body as AuditPostBody).embeds).filter((e) => e.title === 'Weekly digest')).toHaveLength(2);
  });

  it('a digest missed by more than 6 hours is skipped, without a request', async () => {
    clock = MONDAY_9 + 7 * HOUR;
    expect(await postDueDigest(deps, GUILD_ID)).toBe(false);
    expect(reports).toEqual([]);
  });

  it('a digest whose requests failed is tried again a few minutes later, not skipped for the week', async () => {
    const down = Object.create(bot.client) as typeof bot.client;
    down.getStats = () => Promise.reject(new Error('the feed API is down'));
    down.listFeeds = () => Promise.reject(new Error('the feed API is down'));
    await expect(postDueDigest({ ...deps, api: down }, GUILD_ID)).rejects.toThrow('the feed API is down');
    clock += 15 * 60_000;
    answerBoth();
    expect(await postDueDigest(deps, GUILD_ID)).toBe(true);
    expect(reports.filter((r) => r.type === 'digest')).toHaveLength(1);
  });

  it('a digest missed by a restart is posted up to 6 hours late', async () => {
    clock = MONDAY_9 + 5 * HOUR;
    answerBoth();
    expect(await postDueDigest(deps, GUILD_ID)).toBe(true);
    expect(reports.find((r) => r.type === 'digest')).toMatchObject({ lateMs: 5 * HOUR });
  });
});

describe('the request floor sweeps keep', () => {
  let bot: BotHarness;
  let store: SweepStore;
  let clock: number;

  beforeEach(async () => {
    clock = MONDAY_9 + 60_000;
    // The rate gate on the same clock as the digest: its window ends when the test says.
    bot = await createBotHarness({ transport: 'gateway', now: () => clock });
    await bot.setKey();
    loadIntoCache(bot.discord.client, world);
    answerRest(bot.discord.recorder, world);
    store = await SweepStore.open({ databaseUrl: join(bot.dir, 'keys.sqlite'), logger: pino({ level: 'silent' }) });
    await bot.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, auditLocale: 'en-US' }));
    await store.update(GUILD_ID, (c) => ({ next: { ...c, digest: { day: 0, hour: 9 } }, result: undefined }));
  });

  afterEach(async () => {
    await bot.close();
    await store.close();
  });

  /** Rate-limit headers on the test's clock: `remaining` left, the window ending in a minute. */
  const window = (remaining: number) => ({ 'content-type': 'application/json', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(Math.floor(clock / 1000) + 60) });

  it('a digest due with fewer than 10 requests left sends nothing and stays due; once the window resets it posts', async () => {
    const reports: SweepReport[] = [];
    const observers = new Observers<SweepReport>('test');
    observers.add((r) => reports.push(r));
    const lease = new MemoryLease(() => clock);
    const deps: DigestDeps = { ...sweepDepsOf(bot, store, { now: () => clock, reports: observers }), claim: (name, ttl) => lease.claim(name, ttl) };
    // A member's command left the key 2 requests in its window.
    bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: window(2) });
    await bot.client.listFeeds({ apiKey: TEST_KEY, guildId: GUILD_ID }, { fresh: true });
    expect((await bot.client.gateState(TEST_KEY)).remaining).toBe(2);

    expect(await postDueDigest(deps, GUILD_ID)).toBe(false);
    expect(reports).toEqual([]);
    bot.agent.assertNoPendingInterceptors();
    expect((await store.get(GUILD_ID)).digest?.lastWeek).toBeUndefined();
    // Still due at the next checks, and still waiting while the window lasts.
    clock += 30_000;
    expect(await postDueDigest(deps, GUILD_ID)).toBe(false);
    expect(reports).toEqual([]);

    // The window reset: the digest goes out at the next check, within its hours.
    clock += 31_000;
    bot.api
      .intercept({ path: '/v1/stats', method: 'GET' })
      .reply(200, { servidor: 'x', plan: 'server', feedsActivos: 1, feedsPausados: 0, postsHoy: 3, postsEstaSemana: 42, cuentaMasActiva: 'nasa', ultimaActividad: null }, { headers: window(99) });
    bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: window(98) });
    expect(await postDueDigest(deps, GUILD_ID)).toBe(true);
    expect((await store.get(GUILD_ID)).digest?.lastWeek).toBe('2026-W48');
    await bot.audit.flush();
    expect(auditPosts(bot.discord.recorder).flatMap((c) => (c.body as AuditPostBody).embeds).filter((e) => e.title === 'Weekly digest')).toHaveLength(1);
  });
});
