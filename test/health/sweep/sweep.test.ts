/**
 * Health sweeps with the real API client over undici MockAgent, the real key, settings and sweep
 * stores on a temp SQLite file and a discord.js client built from raw payloads (REST recorded):
 * each change is posted once, nothing when nothing changed, the first sweep is a baseline, a
 * server without an audit channel costs no request, a key low on budget is deferred, and the
 * scheduler spreads the guilds over the interval on a fake clock.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Observers } from '../../../src/observers.js';
import type { SweepReport } from '../../../src/health/sweep/events.js';
import { SweepStore } from '../../../src/health/sweep/store.js';
import { SweepRecordSchema } from '../../../src/health/sweep/record.js';
import { sweepGuild, type SweepDeps } from '../../../src/health/sweep/sweep.js';
import { SweepScheduler } from '../../../src/health/sweep/scheduler.js';
import { slotOffset } from '../../../src/health/sweep/slots.js';
import { MemoryLease } from '../../../src/leases/lease-memory.js';
import { API_BASE, createBotHarness, rl, type BotHarness } from '../../helpers/bot.js';
import { GUILD_ID } from '../../helpers/discord.js';
import { AUDIT_CHANNEL_ID, answerRest, auditPosts, loadIntoCache, type AuditPostBody, type World } from '../../audit/discord-world.js';
import { sweepDepsOf } from './deps.js';

const FEED_CHANNEL = '1300000000000000001';
const world: World = { guildId: GUILD_ID, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit' }, { id: FEED_CHANNEL, name: 'media' }] };
const NOW = Date.parse('2026-11-23T19:00:00.000Z');
const recent = new Date(NOW - 3_600_000).toISOString();
const old = new Date(NOW - 30 * 86_400_000).toISOString();

const feed = (over: Record<string, unknown> = {}) => ({ id: 1, cuenta: 'nasa', canal: FEED_CHANNEL, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: recent, ...over });

let bot: BotHarness;
let store: SweepStore;
let deps: SweepDeps;
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
  clock = NOW;
  deps = sweepDepsOf(bot, store, { now: () => clock, reports: observers });
});

afterEach(async () => {
  await bot.close();
  await store.close();
});

const setAudit = (locale = 'en-US') => bot.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, auditLocale: locale }));
const answerFeeds = (feeds: unknown[], remaining = 99) =>
  bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl(remaining) });
const titles = () => auditPosts(bot.discord.recorder).flatMap((c) => (c.body as AuditPostBody).embeds.map((e) => e.title));
async function sweep() {
  const outcome = await sweepGuild(deps, GUILD_ID);
  await bot.audit.flush();
  return outcome;
}

describe('one sweep', () => {
  it('a server without an audit channel costs no request', async () => {
    expect(await sweep()).toEqual({ result: 'no_audit_channel', changes: [] });
    expect(reports.filter((r) => r.type === 'upstream')).toEqual([]);
  });

  it('the first sweep is a baseline; then each change is posted once, and nothing when nothing changed', async () => {
    expect(API_BASE).toContain('/v1');
    await setAudit();
    answerFeeds([feed(), feed({ id: 2, cuenta: 'esa' })]);
    expect((await sweep()).changes).toEqual([]);
    answerFeeds([feed(), feed({ id: 2, cuenta: 'esa' })]);
    expect((await sweep()).changes).toEqual([]);
    expect(titles()).toEqual([]);

    answerFeeds([feed({ estado: 'pausado' }), feed({ id: 2, cuenta: 'esa', ultimoPost: old })]);
    expect((await sweep()).changes).toEqual(['feed_inactive', 'feed_quiet']);
    answerFeeds([feed({ estado: 'pausado' }), feed({ id: 2, cuenta: 'esa', ultimoPost: old })]);
    expect((await sweep()).changes).toEqual([]);
    answerFeeds([feed(), feed({ id: 2, cuenta: 'esa' })]);
    expect((await sweep()).changes).toEqual(['feed_active', 'feed_posting']);
    expect(titles()).toEqual(['Feed #1 is no longer active', 'Feed #2 went quiet', 'Feed #1 is active again', 'Feed #2 posts again']);
    expect(reports.filter((r) => r.type === 'upstream')).toHaveLength(5);
  });

  it('speaks the audit channel’s language', async () => {
    await setAudit('es-ES');
    answerFeeds([feed()]);
    await sweep();
    answerFeeds([feed({ estado: 'pausado' })]);
    await sweep();
    expect(titles()).toEqual(['El feed #1 ya no está activo']);
  });

  it('a revoked key is reported once, on the first sweep too, and never twice', async () => {
    await setAudit();
    for (let i = 0; i < 3; i += 1) bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(401, { error: 'unauthorized' }, { headers: rl() });
    expect((await sweep()).result).toBe('unauthorized');
    await sweep();
    await sweep();
    expect(titles()).toEqual(['The API key stopped working']);
  });

  it('a missing scope (403) is posted once', async () => {
    await setAudit();
    for (let i = 0; i < 2; i += 1) bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(403, { error: 'forbidden' }, { headers: rl() });
    expect((await sweep()).changes).toEqual(['scope_missing']);
    expect((await sweep()).changes).toEqual([]);
    expect(titles()).toEqual(['The API key lacks a permission']);
  });

  it('a deleted channel not yet reported is posted on the first sweep, once', async () => {
    await setAudit();
    const gone = '1300000000000000999';
    answerFeeds([feed({ canal: gone })]);
    expect((await sweep()).changes).toEqual(['channel_gone']);
    answerFeeds([feed({ canal: gone })]);
    expect((await sweep()).changes).toEqual([]);
    expect(titles()).toHaveLength(1);
  });

  it('feed ids the contract allows (negative, 16 digits) are kept, and every feed stays watched', async () => {
    await setAudit();
    const LONG = 1234567890123456;
    answerFeeds([feed(), feed({ id: -5, cuenta: 'esa' }), feed({ id: LONG, cuenta: 'jaxa' })]);
    expect((await sweep()).result).toBe('ok');
    expect(Object.keys((await store.get(GUILD_ID)).baseline?.feeds ?? {}).sort()).toEqual(['-5', '1', String(LONG)]);
    answerFeeds([feed({ estado: 'pausado' }), feed({ id: -5, cuenta: 'esa', estado: 'pausado' }), feed({ id: LONG, cuenta: 'jaxa', ultimoPost: old })]);
    expect(await sweep()).toEqual({ result: 'ok', changes: ['feed_inactive', 'feed_inactive', 'feed_quiet'] });
    expect(titles()).toEqual(['Feed #1 is no longer active', 'Feed #-5 is no longer active', `Feed #${LONG} went quiet`]);
  });

  it('a record written before those ids were allowed still reads, and is compared with', async () => {
    await setAudit();
    // As the previous version stored it: keys of 1 to 15 digits.
    const before = { v: 1, baseline: { key: 'ok', feeds: { '1': { active: true, quiet: false, channel: FEED_CHANNEL, gone: false } } }, last: { at: NOW - 1000, result: 'ok', changes: 0, feeds: 1, warnings: 0 } };
    expect(SweepRecordSchema.parse(before)).toEqual(before);
    await store.update(GUILD_ID, () => ({ next: SweepRecordSchema.parse(before), result: undefined }));
    expect((await store.get(GUILD_ID)).baseline).toEqual(before.baseline);
    answerFeeds([feed({ estado: 'pausado' }), feed({ id: -5, cuenta: 'esa' })]);
    expect((await sweep()).changes).toEqual(['feed_inactive']);
  });

  it('a key with fewer than 10 requests left in its window is deferred, without a request', async () => {
    await setAudit();
    answerFeeds([feed()], 5);
    await sweep();
    expect((await sweep()).result).toBe('deferred');
    expect(reports.filter((r) => r.type === 'upstream')).toHaveLength(1);
    expect((await store.get(GUILD_ID)).last?.result).toBe('deferred');
  });
});

describe('the scheduler', () => {
  const INTERVAL = 60_000;
  const guilds = Array.from({ length: 600 }, (_, i) => String(1100000000000001000n + BigInt(i)));

  it('sweeps nothing at start-up and each guild once per interval, spread evenly', async () => {
    let now = 1_000_000;
    const swept: Array<{ guildId: string; at: number }> = [];
    const scheduler = new SweepScheduler({ intervalMs: INTERVAL, guilds: () => guilds, sweep: async (guildId) => void swept.push({ guildId, at: now }), logger: pino({ level: 'silent' }), now: () => now, tickMs: 1000 });
    scheduler.start();
    await scheduler.tick();
    expect(swept).toEqual([]);
    const perSecond: number[] = [];
    for (let s = 0; s < 2 * (INTERVAL / 1000); s += 1) {
      now += 1000;
      const before = swept.length;
      await scheduler.tick();
      await scheduler.idle();
      perSecond.push(swept.length - before);
    }
    await scheduler.stop();
    expect(swept).toHaveLength(2 * guilds.length);
    for (const g of guilds) expect(swept.filter((s) => s.guildId === g)).toHaveLength(2);
    // 600 guilds over 60 s: 10 a second on average; no second carries a burst.
    expect(Math.max(...perSecond)).toBeLessThan(30);
    // Each at its slot.
    for (const s of swept) expect((s.at - 1_000_000) % INTERVAL >= 0).toBe(true);
    const g0 = guilds[0]!;
    const first = swept.find((s) => s.guildId === g0)!;
    expect(Math.abs((first.at % INTERVAL) - slotOffset(g0, INTERVAL))).toBeLessThanOrEqual(1000);
  });

  it('a lease lets one of three replicas sweep each slot', async () => {
    let now = 5_000_000;
    const lease = new MemoryLease(() => now);
    const swept: string[] = [];
    const replicas = [0, 1, 2].map(
      () =>
        new SweepScheduler({
          intervalMs: INTERVAL,
          guilds: () => guilds.slice(0, 100),
          sweep: async (guildId, slot) => {
            if (await lease.claim(`sweep:${guildId}:${slot}`, INTERVAL)) swept.push(guildId);
          },
          logger: pino({ level: 'silent' }),
          now: () => now,
        }),
    );
    for (const r of replicas) r.start();
    for (let s = 0; s < INTERVAL / 1000; s += 1) {
      now += 1000;
      for (const r of replicas) await r.tick();
    }
    for (const r of replicas) await r.stop();
    expect(swept.sort()).toEqual(guilds.slice(0, 100).sort());
  });
});
