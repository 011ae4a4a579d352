/**
 * HTTP replicas take each sweep's lease in Redis (REDIS_URL). While Redis does not answer, every
 * claim rejects (ClientOfflineError, "Redis is not connected"): the sweeps are skipped quietly,
 * the outage logged once when it starts and once when Redis answers again, never a warning with
 * a stack per server per interval; then the sweeps run again by themselves.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHealthSweeps, type HealthSweeps } from '../../../src/health/sweep/index.js';
import { sweepReports, type SweepReport } from '../../../src/health/sweep/events.js';
import { SweepStore } from '../../../src/health/sweep/store.js';
import type { SlotLease } from '../../../src/leases/lease.js';
import { MemoryLease } from '../../../src/leases/lease-memory.js';
import { createBotHarness, rl, type BotHarness } from '../../helpers/bot.js';
import { GUILD_ID, OTHER_GUILD_ID } from '../../helpers/discord.js';
import { AUDIT_CHANNEL_ID, answerRest, loadIntoCache, type World } from '../../audit/discord-world.js';

const INTERVAL = 60_000;
const FEED_CHANNEL = '1300000000000000001';
const world = (guildId: string): World => ({ guildId, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit' }, { id: FEED_CHANNEL, name: 'media' }] });

/** A Redis lease whose server can be stopped and started: while down, claims reject as @redis/client's do. */
class FlakyLease implements SlotLease {
  readonly kind = 'redis';
  down = false;
  /** The names asked, in order. */
  readonly asked: string[] = [];
  private readonly inner: MemoryLease;
  constructor(now: () => number) {
    this.inner = new MemoryLease(now);
  }
  claim(name: string, ttlMs: number): Promise<boolean> {
    this.asked.push(name);
    if (!this.down) return this.inner.claim(name, ttlMs);
    const error = new Error('The client is offline');
    error.name = 'ClientOfflineError';
    return Promise.reject(error);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

let bot: BotHarness;
let store: SweepStore;
let sweeps: HealthSweeps;
let lease: FlakyLease;
let clock: number;
let reports: SweepReport[];

beforeEach(async () => {
  clock = Date.parse('2026-11-23T00:00:00.000Z');
  bot = await createBotHarness({ transport: 'http' });
  for (const guildId of [GUILD_ID, OTHER_GUILD_ID]) {
    await bot.setKey(guildId);
    loadIntoCache(bot.discord.client, world(guildId));
    await bot.settings.update(guildId, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, auditLocale: 'en-US' }));
  }
  answerRest(bot.discord.recorder, world(GUILD_ID));
  store = await SweepStore.open({ databaseUrl: join(bot.dir, 'keys.sqlite'), logger: bot.logger });
  lease = new FlakyLease(() => clock);
  reports = [];
  const observed = sweepReports();
  observed.add((r) => reports.push(r));
  sweeps = await startHealthSweeps({
    intervalMs: INTERVAL,
    transport: 'http',
    databaseUrl: join(bot.dir, 'keys.sqlite'),
    client: bot.discord.client,
    api: bot.client,
    keys: bot.keys,
    settings: bot.settings,
    audit: bot.audit,
    channels: bot.services.channels,
    store,
    reports: observed,
    logger: bot.logger,
    now: () => clock,
    lease,
    // The test ticks the scheduler itself.
    tickMs: 3_600_000,
  });
});

afterEach(async () => {
  await sweeps.stop();
  await store.close();
  await bot.close();
});

/** Runs the scheduler over `intervals` sweep intervals, a tick per second of the fake clock. */
async function run(intervals: number): Promise<void> {
  for (let s = 0; s < (intervals * INTERVAL) / 1000; s += 1) {
    clock += 1000;
    await sweeps.scheduler.tick();
    await sweeps.scheduler.idle();
  }
}

const warnings = () => bot.logs.filter((l) => (l.level as number) >= 40);
const lines = (msg: string) => bot.logs.filter((l) => l.msg === msg);

describe('Redis, where the sweeps take their lease, does not answer', () => {
  it('the outage is logged once, each sweep and the due digest are skipped without a line, and both resume when Redis answers', async () => {
    // A digest due now (Monday 00:00 UTC), checked at every tick.
    await store.update(GUILD_ID, (c) => ({ next: { ...c, digest: { day: 0, hour: 0 } }, result: undefined }));
    lease.down = true;
    await run(3);
    // Each server's slot came three times, and each time the lease was asked; the digest's at each tick.
    expect(lease.asked.filter((n) => n.startsWith('sweep:'))).toHaveLength(6);
    expect(lease.asked.filter((n) => n.startsWith('digest:')).length).toBeGreaterThan(100);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ level: 40, store: 'redis', cause: 'ClientOfflineError' });
    expect(JSON.stringify(warnings()[0])).not.toContain('stack');
    expect(lines('health sweep failed')).toEqual([]);
    expect(lines('weekly digest not posted')).toEqual([]);
    expect(bot.logs.filter((l) => l.msg === 'health sweep' && l.level === 30)).toEqual([]);
    expect(reports.filter((r) => r.type === 'sweep' || r.type === 'upstream')).toEqual([]);

    lease.down = false;
    // The two sweeps' GET /feeds, and the digest's GET /stats and GET /feeds.
    for (let i = 0; i < 3; i += 1) {
      bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: rl() });
    }
    bot.api
      .intercept({ path: '/v1/stats', method: 'GET' })
      .reply(200, { servidor: 'x', plan: 'server', feedsActivos: 0, feedsPausados: 0, postsHoy: 0, postsEstaSemana: 0, cuentaMasActiva: null, ultimaActividad: null }, { headers: rl() });
    await run(1);
    expect(warnings()).toHaveLength(1);
    expect(bot.logs.filter((l) => l.level === 30 && typeof l.msg === 'string' && /answers again/.test(l.msg))).toHaveLength(1);
    expect(reports.filter((r) => r.type === 'sweep').map((r) => r.type === 'sweep' && r.result)).toEqual(['ok', 'ok']);
    expect(reports.filter((r) => r.type === 'digest')).toHaveLength(1);
    bot.agent.assertNoPendingInterceptors();
  });
});
