/**
 * Scenario 10 — HTTP interactions (INTERACTIONS_MODE=http), with the real bot process throughout
 * (`src/index.ts` from source, as scenarios 5 and 9 start it):
 *
 *  1. throughput per core: the same autocomplete, answered from the guild's cached feed list, at
 *     saturation (32 in flight) over HTTP (signed POSTs the bench prepared, verification in the
 *     bot) and over the gateway (the emulator's INTERACTION_CREATE, the REST callback); answered
 *     interactions per second of the bot process's own CPU time (/proc/<pid>/stat);
 *  2. memory per guild: RSS after start-up with 1 and with 10,000 guilds, HTTP mode against
 *     gateway mode (lib/http-memory.ts);
 *  3. acknowledgement latency through nginx: deliveries as Discord makes them, through nginx in
 *     front of 3 replicas against one replica addressed directly, alternating;
 *  4. the autocomplete storm (scenario 2's schedule) on 3 replicas sharing Redis behind nginx
 *     against one replica: requests the feed API received.
 * Parts 3 and 4 need nginx, part 4 Redis too; without them their rows say "skipped: <reason>".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PermissionFlagsBits } from 'discord.js';
import { autocomplete } from '../lib/discord.js';
import { memoryPoints, type MemoryPoint } from '../lib/http-memory.js';
import { deliveryLatency, storm, type Answer } from '../lib/http-replicas.js';
import { startHttpStage, type HttpStage } from '../lib/http-stage.js';
import { gatewayRound, httpRound, rates, verificationMicros, type Round } from '../lib/http-throughput.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { BenchSigner } from '../lib/signed-post.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

const QUERIES = ['', 'n', 'na', 'e', 'es', 'c'];
const PERMISSIONS = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.SendMessages);
const userOf = (i: number) => String(1400000000000004000n + BigInt(i % 50));

const skippedRow = (name: string, unit: string, reason: string, target?: string): Metric => ({
  name: `${name} (skipped: ${reason})`,
  unit,
  value: null,
  baseline: null,
  ratio: null,
  ...(target ? { target, met: null } : {}),
});

interface Sizes {
  perRound: number;
  rounds: number;
  concurrency: number;
  memorySizes: number[];
  settleMs: number;
  deliveries: number;
  warmup: number;
  count: number;
  windowMs: number;
  replicas: number;
}

function sizesOf(ctx: ScenarioContext): Sizes {
  const o = ctx.overrides ?? {};
  const memoryGuilds = o.memoryGuilds ?? (ctx.quick ? 200 : 10_000);
  return {
    perRound: o.perRound ?? (ctx.quick ? 1_000 : 8_000),
    rounds: o.rounds ?? 2,
    concurrency: 32,
    memorySizes: memoryGuilds > 0 ? [1, memoryGuilds] : [],
    settleMs: o.settleMs ?? 3_000,
    deliveries: o.deliveries ?? (ctx.quick ? 200 : 2_000),
    warmup: o.warmup ?? (ctx.quick ? 30 : 200),
    count: o.count ?? (ctx.quick ? 100 : 1_000),
    windowMs: o.windowMs ?? (ctx.quick ? 6_000 : 60_000),
    replicas: 3,
  };
}

/** Part 1: rounds taking turns, HTTP first in one and the gateway first in the next. */
async function throughput(stage: HttpStage, signer: BenchSigner, sizes: Sizes, log: (m: string) => void) {
  const { guildId } = stage.guilds.load;
  let sent = 0;
  const http = (total: number) => {
    const offset = sent;
    sent += total;
    const payload = (i: number) => autocomplete('feed', 'delete', { id: QUERIES[(offset + i) % QUERIES.length]! }, 'id', { guildId, userId: userOf(offset + i) });
    return httpRound({ pid: stage.single.pid, endpoint: stage.single.endpoint!, signer, payload, total, concurrency: sizes.concurrency });
  };
  const gateway = (total: number) =>
    gatewayRound({
      pid: stage.gateway.pid,
      emulator: stage.emulator,
      total,
      concurrency: sizes.concurrency,
      input: (i) => ({ type: 'autocomplete', commandName: 'feed', subcommand: 'delete', options: { id: QUERIES[i % QUERIES.length]! }, focused: 'id', guildId, userId: userOf(i), permissions: PERMISSIONS }),
    });
  const warm = Math.max(100, Math.round(sizes.perRound / 10));
  log(`  throughput: warm-up ${warm} each, then ${sizes.rounds} round(s) of ${sizes.perRound} each, ${sizes.concurrency} in flight`);
  await http(warm);
  await gateway(warm);
  const rounds: Record<'http' | 'gateway', Round[]> = { http: [], gateway: [] };
  for (let r = 0; r < sizes.rounds; r++) {
    for (const side of r % 2 === 0 ? (['http', 'gateway'] as const) : (['gateway', 'http'] as const)) {
      rounds[side].push(await (side === 'http' ? http : gateway)(sizes.perRound));
    }
  }
  return rounds;
}

function throughputMetrics(rounds: Record<'http' | 'gateway', Round[]>): Metric[] {
  const h = rates(rounds.http);
  const g = rates(rounds.gateway);
  const perCore = ratio(h.perCpuSecond, g.perCpuSecond);
  return [
    { name: 'interactions per CPU-second of the bot, HTTP vs gateway', unit: '/s', value: round(h.perCpuSecond), baseline: round(g.perCpuSecond), ratio: perCore, target: '≥ 1.0× gateway', met: perCore === null ? null : perCore >= 1 },
    { name: 'interactions per second (wall clock), HTTP vs gateway', unit: '/s', value: round(h.perSecond), baseline: round(g.perSecond), ratio: ratio(h.perSecond, g.perSecond) },
    { name: 'bot CPU busy during the rounds, HTTP vs gateway', unit: '%', value: round(h.cpuShare * 100), baseline: round(g.cpuShare * 100) },
  ];
}

function throughputNote(rounds: Record<'http' | 'gateway', Round[]>, verifyUs: number, sizes: Sizes): string {
  const [httpUs, gatewayUs] = [1e6 / rates(rounds.http).perCpuSecond, 1e6 / rates(rounds.gateway).perCpuSecond];
  return (
    `Throughput: ${sizes.rounds} round(s) of ${sizes.perRound} autocompletes per side, answered from the guild's cached feed list. CPU per interaction: ${round(httpUs, 0)} µs over HTTP, ${round(gatewayUs, 0)} µs over the gateway. ` +
    `The bot's Ed25519 check (src/http/signature.ts) costs ${round(verifyUs, 0)} µs of CPU per request on this machine (timed in the bench process); without it the HTTP side would be at ${round(ratio(gatewayUs, httpUs - verifyUs) ?? Number.NaN, 2)}× the gateway's rate per CPU-second.`
  );
}

const kb = (bytes: number) => round(bytes / 1024, 2);
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

function memoryPart(points: MemoryPoint[]): Part {
  if (points.length < 2) return { metrics: [skippedRow('RSS per extra guild, HTTP vs gateway', 'KB', 'not asked for in this run')], notes: [] };
  const [first, last] = [points[0]!, points.at(-1)!];
  const perGuild = (pick: (p: MemoryPoint) => number) => (pick(last) - pick(first)) / (last.guilds - first.guilds);
  const rss = perGuild((p) => p.http.rss);
  const gatewayRss = perGuild((p) => p.gateway.rss);
  const heap = perGuild((p) => p.http.heapUsed);
  const range = `${first.guilds}→${last.guilds}`;
  const oneKey = last.httpOneKey;
  return {
    metrics: [
      ...points.map((p) => ({ name: `RSS after start-up, ${p.guilds} guild(s), HTTP vs gateway`, unit: 'MB', value: mb(p.http.rss), baseline: mb(p.gateway.rss), ratio: ratio(p.http.rss, p.gateway.rss) })),
      // Growth near 0 is noise around 0: a ratio of two such figures means nothing.
      { name: `RSS per extra guild (${range}), HTTP vs gateway`, unit: 'KB', value: kb(rss), baseline: kb(gatewayRss), ratio: null, target: '≤ 0.5 KB', met: rss <= 512 },
      { name: `heap used per extra guild (${range}), HTTP vs gateway`, unit: 'KB', value: kb(heap), baseline: kb(perGuild((p) => p.gateway.heapUsed)), ratio: null },
      ...(oneKey ? [{ name: `RSS per extra guild (${range}), HTTP with one key stored (diagnostic)`, unit: 'KB', value: kb((oneKey.rss - first.http.rss) / (last.guilds - first.guilds)) }] : []),
    ],
    details: points.map((p) => ({
      guilds: p.guilds,
      http: { rssMb: mb(p.http.rss), heapUsedMb: mb(p.http.heapUsed), peakRssMb: mb(p.http.peakRss) },
      gateway: { rssMb: mb(p.gateway.rss), heapUsedMb: mb(p.gateway.heapUsed), peakRssMb: mb(p.gateway.peakRss) },
      ...(p.httpOneKey ? { httpOneKeyStored: { rssMb: mb(p.httpOneKey.rss), heapUsedMb: mb(p.httpOneKey.heapUsed) } } : {}),
    })),
    notes: [
      `Memory after start-up and a full GC, one key stored per guild: HTTP mode ${mb(first.http.rss)} MB with ${first.guilds} guild(s) and ${mb(last.http.rss)} MB with ${last.guilds} (heap ${mb(first.http.heapUsed)} and ${mb(last.http.heapUsed)} MB); gateway mode ${mb(first.gateway.rss)} and ${mb(last.gateway.rss)} MB (heap ${mb(first.gateway.heapUsed)} and ${mb(last.gateway.heapUsed)} MB).`,
      ...(oneKey
        ? [`Diagnostic: HTTP mode with the same ${last.guilds} guilds known to the emulator but one key stored: ${mb(oneKey.rss)} MB (heap ${mb(oneKey.heapUsed)} MB), against ${mb(first.http.rss)} MB with 1 guild and ${mb(last.http.rss)} MB with ${last.guilds} keys.`]
        : []),
    ],
  };
}

const answeredMs = (answers: Answer[]) => summarize(answers.filter((a) => a.status === 200).map((a) => a.ms));
const notOk = (answers: Answer[]) => answers.filter((a) => a.status !== 200).length;

/** What each part adds to the result. */
interface Part {
  metrics: Metric[];
  details?: unknown;
  notes: string[];
}

async function latencyPart(stage: HttpStage, signer: BenchSigner, sizes: Sizes, log: (m: string) => void): Promise<Part> {
  const target = 'nginx adds ≤ 1 ms';
  if (!stage.viaNginx) return { metrics: [skippedRow('p50 delivery→answer, nginx + replicas vs one replica directly', 'ms', stage.skipped.replicas!, target)], notes: [] };
  const replicas = `nginx + ${stage.replicas.length} replicas vs one replica directly`;
  log(`  latency: ${sizes.deliveries} deliveries each, through nginx (${stage.replicas.length} replicas) and directly, alternating`);
  const run = await deliveryLatency({ signer, viaNginx: stage.viaNginx, direct: stage.replicas[0]!.endpoint!, guildId: stage.guilds.latency.guildId, deliveries: sizes.deliveries, warmup: sizes.warmup });
  const [n, d] = [answeredMs(run.viaNginx), answeredMs(run.direct)];
  const added = n.p50 - d.p50;
  return {
    metrics: [
      { name: `p50 delivery→answer, ${replicas}`, unit: 'ms', value: round(n.p50), baseline: round(d.p50), ratio: ratio(n.p50, d.p50), target, met: Number.isFinite(added) ? added <= 1 : null },
      { name: `p99 delivery→answer, ${replicas}`, unit: 'ms', value: round(n.p99), baseline: round(d.p99), ratio: ratio(n.p99, d.p99) },
    ],
    details: { viaNginx: roundSummary(n), direct: roundSummary(d), notOk: { viaNginx: notOk(run.viaNginx), direct: notOk(run.direct) } },
    notes: [
      `Latency: nginx added ${round(added * 1000, 0)} µs at p50 and ${round((n.p99 - d.p99) * 1000, 0)} µs at p99; every delivery signed when sent and on a fresh connection, as the emulator sends them; answers other than 200: ${notOk(run.viaNginx)} through nginx, ${notOk(run.direct)} direct.`,
    ],
  };
}

async function stormPart(stage: HttpStage, signer: BenchSigner, sizes: Sizes, log: (m: string) => void): Promise<Part> {
  const skip = stage.skipped.replicas ?? stage.skipped.redis;
  if (skip !== undefined) return { metrics: [skippedRow('storm: upstream GET /feeds, replicas + Redis vs 1 replica', 'requests', skip, '= 1 replica')], notes: [] };
  log(`  storm: ${sizes.count} keystrokes over ${sizes.windowMs / 1000} s, ${stage.replicas.length} replicas behind nginx and one replica side by side`);
  const { stormReplicas, stormSingle } = stage.guilds;
  const { answers, spanMs } = await storm({
    signer,
    count: sizes.count,
    windowMs: sizes.windowMs,
    sides: { replicas: { endpoint: stage.viaNginx!, guildId: stormReplicas.guildId }, single: { endpoint: stage.single.endpoint!, guildId: stormSingle.guildId } },
  });
  const counts = await stage.sandbox.counts();
  const upstream = (guildId: string) => Object.values(counts[guildId] ?? {}).reduce((a, b) => a + b, 0);
  const [many, one] = [upstream(stormReplicas.guildId), upstream(stormSingle.guildId)];
  const empty = (list: Answer[]) => list.filter((a) => a.choices === 0).length;
  const [rs, ss] = [answeredMs(answers.replicas), answeredMs(answers.single)];
  return {
    metrics: [
      { name: `storm: upstream GET /feeds, ${stage.replicas.length} replicas + Redis vs 1 replica`, unit: 'requests', value: many, baseline: one, ratio: ratio(many, one), target: '= 1 replica', met: many <= one },
      { name: 'storm: answers without choices', unit: 'answers', value: empty(answers.replicas), baseline: empty(answers.single) },
      { name: 'storm: p99 delivery→answer', unit: 'ms', value: round(rs.p99), baseline: round(ss.p99), ratio: ratio(rs.p99, ss.p99) },
    ],
    details: {
      replicas: roundSummary(rs),
      single: roundSummary(ss),
      upstreamByStatus: { replicas: counts[stormReplicas.guildId] ?? {}, single: counts[stormSingle.guildId] ?? {} },
      notOk: { replicas: notOk(answers.replicas), single: notOk(answers.single) },
      scheduleSpanMs: Math.round(spanMs),
    },
    notes: [
      `Storm: ${sizes.count} keystrokes over ${sizes.windowMs / 1000} s (scenario 2's schedule), nginx spreading them round-robin over ${stage.replicas.length} replicas that share the feed list cache in Redis, against one replica on its own; the feed API received ${many} and ${one} GET /feeds.`,
    ],
  };
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const sizes = sizesOf(ctx);
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-http-'));
  const signer = new BenchSigner();
  try {
    const points = await memoryPoints({ sizes: sizes.memorySizes, dir, signer, settleMs: sizes.settleMs, log: ctx.log });
    const stage = await startHttpStage({ dir, signer, replicas: sizes.replicas, log: ctx.log });
    let parts: Part[];
    try {
      const rounds = await throughput(stage, signer, sizes, ctx.log);
      const sample = autocomplete('feed', 'delete', { id: 'na' }, 'id', { guildId: stage.guilds.load.guildId, userId: userOf(0) });
      const verifyUs = verificationMicros(signer, sample, ctx.quick ? 500 : 3_000);
      const roundFigures = (list: Round[]) => list.map((r) => ({ answered: r.answered, failed: r.failed, wallS: round(r.wallS), cpuS: round(r.cpuS) }));
      const throughputPart: Part = {
        metrics: throughputMetrics(rounds),
        details: { http: roundFigures(rounds.http), gateway: roundFigures(rounds.gateway), ed25519VerifyUs: round(verifyUs) },
        notes: [throughputNote(rounds, verifyUs, sizes)],
      };
      parts = [throughputPart, memoryPart(points), await latencyPart(stage, signer, sizes, ctx.log), await stormPart(stage, signer, sizes, ctx.log)];
    } finally {
      await stage.close();
    }
    const names = ['throughput', 'memory', 'latency', 'storm'];
    return {
      id: 10,
      key: 'http-interactions',
      title: 'HTTP interactions',
      baseline: 'the same bot over the gateway (throughput and memory rows); one replica addressed directly (latency rows); one replica without Redis (storm rows)',
      params: { ...sizes, command: 'autocomplete of /feed delete (and /feed posts), from the cached feed list', feedApi: 'sandbox over HTTPS (worker thread)', bot: 'src/index.ts from source (tsx loader)' },
      metrics: parts.flatMap((p) => p.metrics),
      details: Object.fromEntries(parts.flatMap((p, i) => (p.details === undefined ? [] : [[names[i]!, p.details]]))),
      notes: parts.flatMap((p) => p.notes),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
