/**
 * Scenario 11 — health sweeps at 100,000 servers. The real SweepScheduler
 * (src/health/sweep/scheduler.ts) with 100,000 keyed servers that all have an audit channel, over
 * three whole intervals of HEALTH_SWEEP_SECONDS (6 hours by default) on a fake clock: each tick is
 * called as its timer would call it, the sweep function only records when it was called (no HTTP),
 * so what is measured is the scheduler itself and the times it starts sweeps at:
 *
 * - memory: the heap the scheduler's slots take (after a forced GC, before and after its first
 *   refresh), and CPU: the scheduler's own CPU per interval (ticks, refreshes, queueing);
 * - the request rate it sends: sweeps started per tick and per second over an interval, the per
 *   second histogram modelled for an API answering in `latencyMs` (the scheduler runs at most 4
 *   sweeps at once, so a tick's batch leaves at most 4 requests per `latencyMs`);
 * - the slot wait: from a change at the API (at a random instant) to the start of the next sweep of
 *   that server, and every server swept exactly once per interval.
 *
 * The delay to the audit post is the slot wait plus one sweep (one GET /feeds and the post).
 */
import { randomInt } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SweepScheduler } from '../../src/health/sweep/scheduler.js';
import { slotOffset } from '../../src/health/sweep/slots.js';
import { benchLogger } from '../lib/logger.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { round, roundSummary, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

const DEFAULTS = { servers: 100_000, intervalSeconds: 21_600, latencyMs: 100, changes: 100_000 };
const QUICK = { servers: 5_000, intervalSeconds: 3_600, latencyMs: 100, changes: 5_000 };
/** The scheduler's own bound on sweeps at once (SchedulerOptions.concurrency's default). */
const CONCURRENCY = 4;

function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

/** Snowflake-like ids, as Discord's: 18–19 digits, increasing. */
function guildIds(count: number): string[] {
  const base = 1_100_000_000_000_000_000n;
  return Array.from({ length: count }, (_, i) => String(base + BigInt(i) * 4_194_304n + BigInt(randomInt(4_194_304))));
}

/** A histogram of `values` in buckets of `width` (value → how many). */
function histogram(values: readonly number[], width: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) {
    const bucket = String(Math.floor(v / width) * width);
    out[bucket] = (out[bucket] ?? 0) + 1;
  }
  return out;
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const size = { ...(ctx.quick ? QUICK : DEFAULTS), ...ctx.overrides };
  const intervalMs = size.intervalSeconds * 1000;
  const gc = forceGc();
  const ids = guildIds(size.servers);
  ctx.log(`  ${size.servers} servers, interval ${size.intervalSeconds} s`);

  // A fake clock from a whole interval boundary, so each interval is one full round.
  const t0 = Math.ceil(Date.UTC(2026, 0, 5) / intervalMs) * intervalMs;
  let now = t0;
  const starts: number[] = [];
  const perGuild = new Map<string, number[]>();
  const scheduler = new SweepScheduler({
    intervalMs,
    guilds: () => ids,
    sweep: (guildId) => {
      starts.push(now);
      const list = perGuild.get(guildId);
      if (list) list.push(now);
      else perGuild.set(guildId, [now]);
      return Promise.resolve();
    },
    logger: benchLogger().logger,
    now: () => now,
  });
  // The defaults the bot runs with (scheduler.ts): a tick every hundredth of the interval (≤ 1 s), a refresh every ≤ 5 min.
  const tickMs = Math.min(1_000, Math.max(250, Math.floor(intervalMs / 100)));
  const refreshMs = Math.min(intervalMs, 5 * 60_000);

  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  // start() also arms its real timer; a tick it fires sees the same fake instant and does nothing.
  scheduler.start();
  now += tickMs;
  await scheduler.tick(); // the first tick refreshes: every server's slot, sorted
  await scheduler.idle();
  gc();
  const heapAfter = process.memoryUsage().heapUsed;

  // Three whole intervals, tick by tick (the second is the steady one measured; the third has the sweeps its late changes wait for); CPU and wall time of the scheduler alone.
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const ticksPerInterval = Math.round(intervalMs / tickMs);
  const tickBatches: number[] = [];
  for (let i = 0; i < 3 * ticksPerInterval; i++) {
    const before = starts.length;
    now += tickMs;
    await scheduler.tick();
    await scheduler.idle();
    tickBatches.push(starts.length - before);
  }
  const cpu = process.cpuUsage(cpuStart);
  const cpuMsPerInterval = (cpu.user + cpu.system) / 1000 / 3;
  const wallMsPerInterval = (performance.now() - wallStart) / 3;
  await scheduler.stop();

  // Each server once per interval: count the sweeps of the second (steady) interval.
  const secondFrom = t0 + tickMs + intervalMs;
  const secondTo = secondFrom + intervalMs;
  let onceEach = 0;
  let notOnce = 0;
  for (const id of ids) {
    const n = (perGuild.get(id) ?? []).filter((t) => t > secondFrom && t <= secondTo).length;
    if (n === 1) onceEach++;
    else notOnce++;
  }

  // Per tick: the batch sizes of the steady interval.
  const steadyBatches = tickBatches.slice(ticksPerInterval, 2 * ticksPerInterval);
  const batch = summarize(steadyBatches);
  // Per second, modelled: a tick's batch leaves CONCURRENCY requests every latencyMs.
  const perSecond = new Map<number, number>();
  for (const b of steadyBatches) {
    for (let k = 0; k < b; k++) {
      const second = Math.floor((Math.floor(k / CONCURRENCY) * size.latencyMs) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
  }
  const secondsInTick = tickMs / 1000;
  const busySeconds = [...perSecond.keys()].length;
  const peakPerSecond = Math.max(...steadyBatches.map((b) => Math.min(b, Math.round((CONCURRENCY * 1000) / size.latencyMs))));
  const meanPerSecond = size.servers / size.intervalSeconds;

  // The slot wait: a change at a random instant of the second interval, then the next sweep of its server.
  const waits: number[] = [];
  for (let i = 0; i < size.changes; i++) {
    const id = ids[randomInt(ids.length)]!;
    const at = secondFrom + randomInt(intervalMs - tickMs);
    const next = (perGuild.get(id) ?? []).find((t) => t > at);
    if (next !== undefined) waits.push(next - at);
  }
  const wait = summarize(waits);
  // The worst case from the slot distribution: a change just after the sweep's GET waits one
  // interval, plus at most one tick of lateness, plus the queue of that tick's batch.
  const worstQueueMs = Math.ceil(batch.max / CONCURRENCY) * size.latencyMs;
  const boundMs = intervalMs + tickMs + worstQueueMs;
  // The slots' spread: the offsets' histogram over the interval, in 100 buckets.
  const offsets = ids.map((id) => slotOffset(id, intervalMs));
  const spread = Object.values(histogram(offsets, intervalMs / 100));

  const heapBytesPerServer = (heapAfter - heapBefore) / size.servers;
  const metrics: Metric[] = [
    { name: 'servers', unit: 'count', value: size.servers },
    { name: 'scheduler heap (slots)', unit: 'MB', value: round((heapAfter - heapBefore) / 1024 / 1024, 2) },
    { name: 'heap per server', unit: 'bytes', value: round(heapBytesPerServer, 0) },
    { name: 'scheduler CPU per interval', unit: 'ms', value: round(cpuMsPerInterval, 0), target: 'small beside the interval' },
    { name: 'scheduler CPU share of the interval', unit: '%', value: round((cpuMsPerInterval / intervalMs) * 100, 5) },
    { name: 'each server swept once per interval', unit: 'servers', value: onceEach, target: `= ${size.servers}`, met: notOnce === 0 },
    { name: 'mean request rate', unit: 'req/s', value: round(meanPerSecond, 2) },
    { name: 'sweeps per tick (mean)', unit: 'count', value: round(batch.mean, 1) },
    { name: 'sweeps per tick (max)', unit: 'count', value: batch.max },
    { name: `peak req/s (API answering in ${size.latencyMs} ms)`, unit: 'req/s', value: peakPerSecond },
    { name: 'slot wait p50', unit: 's', value: round(wait.p50 / 1000, 0) },
    { name: 'slot wait p99', unit: 's', value: round(wait.p99 / 1000, 0) },
    { name: 'slot wait max', unit: 's', value: round(wait.max / 1000, 0), target: `≤ interval + 60 s = ${size.intervalSeconds + 60} s`, met: wait.max <= intervalMs + 60_000 },
    { name: 'worst-case wait (interval + tick + queue)', unit: 's', value: round(boundMs / 1000, 1), target: `≤ ${size.intervalSeconds + 60} s`, met: boundMs <= intervalMs + 60_000 },
  ];
  return {
    id: 11,
    key: 'health-sweeps',
    title: 'Health sweeps at 100,000 servers',
    baseline: 'none (absolute figures; goal: spread requests, change → post within the interval + 1 min)',
    params: { ...size, tickMs, refreshMs, concurrency: CONCURRENCY },
    metrics,
    details: {
      sweepsPerTick: roundSummary(batch),
      sweepsPerTickHistogram: histogram(steadyBatches, 5),
      // Over one tick (tickMs), in the modelled latency: how many requests leave in its 1st, 2nd… second.
      requestsBySecondOfTick: Object.fromEntries([...perSecond].sort((a, b) => a[0] - b[0]).map(([s, n]) => [s, round(n / steadyBatches.length, 1)])),
      busySecondsPerTick: `${busySeconds} of ${secondsInTick}`,
      slotWaitSeconds: roundSummary({ ...wait, mean: wait.mean / 1000, p50: wait.p50 / 1000, p90: wait.p90 / 1000, p99: wait.p99 / 1000, max: wait.max / 1000 }),
      slotsPerHundredthOfInterval: roundSummary(summarize(spread)),
      wallMsPerInterval: round(wallMsPerInterval, 0),
      notOnce,
    },
    notes: [
      'The sweep function is a counting fake on a fake clock: no HTTP. Request-rate figures per second are modelled from the batch per tick, the scheduler’s concurrency (4) and the given API latency.',
      'The delay to the audit post adds one sweep (one GET /feeds, then the post) to the slot wait.',
    ],
    durationMs: Math.round(performance.now() - started),
  };
}
