/**
 * Scenario 9 — sharded start-up. 100,000 guilds on one Discord emulator with Discord's
 * identify limits (max_concurrency 16, one IDENTIFY per bucket per 5 s, 2,500 guilds per shard at
 * most), run as SHARD_COUNT=48 by four processes at once: the real bot (`src/index.ts` with
 * SHARD_COUNT/SHARD_IDS, as `npm start` runs it from source, one SQLite key store each) against
 * four bare discord.js clients with the same shard ranges. Measured per group: spawn → all four
 * `ready` lines, spawn → the emulator's last GUILD_CREATE, then each process's RSS after a settle
 * time and a full GC, per process and per guild it holds. Two ways to split the shards:
 * bucket-aligned ranges (the layout to deploy) and contiguous ranges (the naive one, where
 * processes collide on identify buckets and the emulator answers op 9). A fresh emulator serves
 * each group; bot and baseline groups take turns, never at the same time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateGuilds, shardForGuild } from '@feedbot/discord-emulator';
import { formatShardIds } from '../../src/shard-ids.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { runGroup, shardLayout, type GroupRun, type Layout, type Side } from '../lib/shard-group.js';
import { ratio, round, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

const MAX_CONCURRENCY = 16;
const IDENTIFY_WINDOW_MS = 5_000;
const LAYOUT_NAME: Record<Layout, string> = { aligned: 'bucket-aligned', contiguous: 'contiguous ranges' };

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const o = ctx.overrides ?? {};
  const guildCount = o.guilds ?? (ctx.quick ? 10_000 : 100_000);
  const processes = o.processes ?? 4;
  const shardCount = o.shardCount ?? 48;
  const rounds = o.rounds ?? (ctx.quick ? 1 : 3);
  const settleMs = o.settleMs ?? (ctx.quick ? 1_000 : 3_000);
  const identifyWindowMs = o.identifyWindowMs ?? IDENTIFY_WINDOW_MS;
  const layouts: Layout[] = (o.contiguous ?? 1) ? ['aligned', 'contiguous'] : ['aligned'];
  const shape = { processes, shardCount, maxConcurrency: MAX_CONCURRENCY };

  const guilds = generateGuilds(guildCount);
  const guildsPerShard = new Array<number>(shardCount).fill(0);
  for (const g of guilds) guildsPerShard[shardForGuild(g.id, shardCount)]!++;
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-sharded-'));
  const runs: GroupRun[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const layout of layouts) {
        // Turns alternate from round to round, so drift on the machine hits both sides.
        const sides: Side[] = r % 2 === 0 ? ['bot', 'baseline'] : ['baseline', 'bot'];
        for (const side of sides) {
          ctx.log(`  round ${r + 1}/${rounds}, ${LAYOUT_NAME[layout]}: ${processes} × ${side === 'bot' ? 'feedbot' : 'bare discord.js'}`);
          const result = await runGroup({ ...shape, side, layout, guilds, guildsPerShard, identifyWindowMs, settleMs, dir, timeoutMs: 240_000 });
          ctx.log(`    all READY ${(result.allReadyMs / 1000).toFixed(1)} s, op 9 ×${result.rateLimited}, RSS ${result.processes.map((p) => mb(p.memory.rss)).join(' / ')} MB`);
          runs.push(result);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return report({ runs, guildCount, processes, shardCount, rounds, settleMs, identifyWindowMs, layouts, started });
}

const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
const kb = (bytes: number) => round(bytes / 1024, 2);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Sums over the processes of one group. */
function totals(run: GroupRun) {
  const sum = (pick: (p: GroupRun['processes'][number]) => number) => run.processes.reduce((s, p) => s + pick(p), 0);
  const rss = sum((p) => p.memory.rss);
  const guilds = sum((p) => p.guilds);
  return { rss, rssPerGuild: rss / guilds, heapPerGuild: sum((p) => p.memory.heapUsed) / guilds };
}

interface ReportInput {
  runs: GroupRun[];
  guildCount: number;
  processes: number;
  shardCount: number;
  rounds: number;
  settleMs: number;
  identifyWindowMs: number;
  layouts: Layout[];
  started: number;
}

function report({ runs, guildCount, processes, shardCount, rounds, settleMs, identifyWindowMs, layouts, started }: ReportInput): ScenarioResult {
  const of = (side: Side, layout: Layout) => runs.filter((r) => r.side === side && r.layout === layout);
  /** Median over the rounds of one figure of a group, for each side. */
  const median = (layout: Layout, pick: (r: GroupRun) => number) => ({
    bot: summarize(of('bot', layout).map(pick)).p50,
    baseline: summarize(of('baseline', layout).map(pick)).p50,
  });
  const row = (name: string, unit: string, m: { bot: number; baseline: number }, scale: (v: number) => number, target?: { text: string; max: number }): Metric => {
    const r = ratio(m.bot, m.baseline);
    return { name, unit, value: scale(m.bot), baseline: scale(m.baseline), ratio: r, ...(target ? { target: target.text, met: r === null ? null : r <= target.max } : {}) };
  };
  const ms = (v: number) => round(v, 0);
  const layoutFigures = (layout: Layout) => ({
    ready: median(layout, (r) => r.allReadyMs),
    sent: median(layout, (r) => r.allSentMs),
    connect: median(layout, (r) => r.firstConnectMs),
    waves: median(layout, (r) => r.allReadyMs - (r.identifyAtMs[0] ?? NaN)),
    opNine: median(layout, (r) => r.rateLimited),
    rssPerProcess: median(layout, (r) => totals(r).rss / processes),
    rssTotal: median(layout, (r) => totals(r).rss),
    rssPerGuild: median(layout, (r) => totals(r).rssPerGuild),
    heapPerGuild: median(layout, (r) => totals(r).heapPerGuild),
  });
  const figures: Partial<Record<Layout, ReturnType<typeof layoutFigures>>> = {};

  const metrics: Metric[] = [];
  for (const layout of layouts) {
    const f = (figures[layout] = layoutFigures(layout));
    const name = LAYOUT_NAME[layout];
    metrics.push(row(`all ${processes} processes READY after spawn, ${name}`, 'ms', f.ready, ms, layout === 'aligned' ? { text: '≤ 1.25× baseline', max: 1.25 } : undefined));
    metrics.push(row(`every shard's GUILD_CREATEs sent, ${name}`, 'ms', f.sent, ms));
    if (layout === 'aligned') {
      metrics.push(row(`first gateway connection after spawn, ${name}`, 'ms', f.connect, ms));
      metrics.push(row(`first IDENTIFY → all READY, ${name}`, 'ms', f.waves, ms));
      metrics.push(row(`RSS per process (mean of ${processes}), ${name}`, 'MB', f.rssPerProcess, mb));
      metrics.push(row(`RSS of all ${processes} processes, ${name}`, 'MB', f.rssTotal, mb));
      metrics.push(row(`RSS per guild held, ${name}`, 'KB', f.rssPerGuild, kb, { text: '≤ baseline', max: 1 }));
      metrics.push(row(`heap used per guild held, ${name}`, 'KB', f.heapPerGuild, kb));
    }
    metrics.push(row(`IDENTIFYs refused with op 9 per start, ${name}`, 'count', f.opNine, (v) => v));
  }

  const aligned = figures.aligned!;
  const contiguous = figures.contiguous;
  const rangesText = (layout: Layout) => shardLayout(layout, { processes, shardCount, maxConcurrency: MAX_CONCURRENCY }).map(formatShardIds).join(' | ');
  const perProcess = (side: Side) => of(side, 'aligned').flatMap((r) => r.processes.map((p) => p.memory.rss));
  const spread = (side: Side) => `${mb(Math.min(...perProcess(side)))}–${mb(Math.max(...perProcess(side)))} MB`;
  const loads = runs.map((r) => r.load);
  // Shards per bucket: one process of an aligned layout holds all of a bucket's shards.
  const waves = Math.ceil(shardCount / MAX_CONCURRENCY);
  const notes = [
    `Medians of ${rounds} start(s) per side and layout; ${guildCount.toLocaleString('en-US')} guilds over ${shardCount} shards (${Math.round(guildCount / shardCount).toLocaleString('en-US')} per shard), ${processes} processes, max_concurrency ${MAX_CONCURRENCY}, identify window ${identifyWindowMs / 1000} s.`,
    `Bucket-aligned (${rangesText('aligned')}): all ${processes} feedbot processes READY after ${seconds(aligned.ready.bot)} s, the bare clients after ${seconds(aligned.ready.baseline)} s; ${waves > 1 ? `each process identifies its shards in ${waves} waves 5 s apart (discord.js's own throttle), so about ${(waves - 1) * 5} s of either figure is the identify limit itself` : 'every shard identifies at once'}.`,
    `Resident memory after a full GC, bucket-aligned: feedbot ${spread('bot')} per process, ${mb(aligned.rssTotal.bot)} MB in all (${kb(aligned.rssPerGuild.bot)} KB per guild held); bare clients ${spread('baseline')}, ${mb(aligned.rssTotal.baseline)} MB (${kb(aligned.rssPerGuild.baseline)} KB per guild).`,
  ];
  const opNine = (side: Side) => of(side, 'aligned').map((r) => r.rateLimited).join(', ');
  notes.push(`Start-up: the first gateway connection came ${seconds(aligned.connect.bot)} s after spawn for feedbot (from TypeScript through tsx's loader, ${processes} processes starting at once) and ${seconds(aligned.connect.baseline)} s for the bare clients; from the first IDENTIFY to all READY took ${seconds(aligned.waves.bot)} s and ${seconds(aligned.waves.baseline)} s.`);
  if (of('bot', 'aligned').some((r) => r.rateLimited > 0) || of('baseline', 'aligned').some((r) => r.rateLimited > 0)) {
    notes.push(
      `op 9 with bucket-aligned ranges, per start: feedbot ${opNine('bot')}; bare clients ${opNine('baseline')}. A later-wave IDENTIFY reached the emulator a few ms inside its bucket's window: discord.js times the 5 s from when it sends an IDENTIFY, the emulator from when it accepts one. Each costs that shard one more 5 s wait.`,
    );
  }
  if (contiguous) {
    notes.push(
      `Contiguous ranges (${rangesText('contiguous')}): READY after ${seconds(contiguous.ready.bot)} s (feedbot) and ${seconds(contiguous.ready.baseline)} s (bare clients), against ${seconds(aligned.ready.bot)} s and ${seconds(aligned.ready.baseline)} s bucket-aligned; the emulator refused ${contiguous.opNine.bot} and ${contiguous.opNine.baseline} IDENTIFYs with op 9 per start, each retried by discord.js 5 s later.`,
    );
  }
  notes.push(`Machine load (1-minute average) at the start of the groups: ${round(Math.min(...loads), 2)}–${round(Math.max(...loads), 2)} on ${availableParallelism()} cores shared with other work.`);

  return {
    id: 9,
    key: 'sharded',
    title: 'Sharded start-up',
    baseline: `${processes} bare discord.js clients (Guilds intent, default caches) with the same SHARD_COUNT and shard ranges, on the same emulator set-up, started in turns with feedbot's group`,
    params: {
      guilds: guildCount,
      shardCount,
      processes,
      maxConcurrency: MAX_CONCURRENCY,
      identifyWindowMs,
      rounds,
      settleMs,
      layouts: Object.fromEntries(layouts.map((l) => [l, rangesText(l)])),
      measured: 'spawn → last "ready" line; spawn → emulator\'s last guilds_sent; VmRSS after settle + full GC (--expose-gc, IPC probe)',
    },
    metrics,
    details: {
      runs: runs.map((r) => ({
        side: r.side,
        layout: r.layout,
        allReadyMs: ms(r.allReadyMs),
        allSentMs: ms(r.allSentMs),
        identifies: r.identifies,
        rateLimited: r.rateLimited,
        firstConnectMs: ms(r.firstConnectMs),
        identifyAtMs: r.identifyAtMs.map(ms),
        load: round(r.load, 2),
        processes: r.processes.map((p) => ({
          shards: p.shardIds,
          guilds: p.guilds,
          guildsAtReady: p.guildsAtReady,
          readyMs: ms(p.readyMs),
          rssMb: mb(p.memory.rss),
          peakRssMb: mb(p.memory.peakRss),
          heapUsedMb: mb(p.memory.heapUsed),
          rssPerGuildKb: kb(p.memory.rss / p.guilds),
        })),
      })),
    },
    notes,
    durationMs: Math.round(performance.now() - started),
  };
}
