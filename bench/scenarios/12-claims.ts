/**
 * Scenario 12 — exactly once, and deploys without a gap.
 *
 * A. What claiming each interaction in the shared store costs on the interaction path (src/bot/
 *    claims.ts). `/feed list` through the real bot (createBot), dispatch → interaction callback, one
 *    interaction at a time, three bots alternating: the baseline claims in its own memory (what a
 *    process alone needs: nothing shared), the others in the SQLite coordination file (the default)
 *    and in Redis (a real server on loopback; left out with a note when absent). Twice: against a
 *    feed API that answers at once (in-process MockAgent: the whole path is then well under 1 ms, so
 *    one store round trip is of its order) and against one 5 ms away (a fast API over a network).
 * B. The seconds during a deploy in which no process was ready (/readyz sampled every 50 ms), for
 *    the blue/green deploy docs/OPERATIONS.md describes (start the new process beside the old one,
 *    SIGTERM the old once the new one is ready) against the stop-then-start deploy it replaces.
 *    Real processes, the Discord emulator and the sandbox (packages/playground).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort, serverBinariesMissing, Stack, startRedis, type LocalServer } from '@feedbot/playground';
import type { SlotLease } from '../../src/leases/lease.js';
import { MemoryLease } from '../../src/leases/lease-memory.js';
import { RedisLease } from '../../src/leases/lease-redis.js';
import { startBenchBot, type BenchBot } from '../lib/bot.js';
import { chatInput, dispatch } from '../lib/discord.js';
import { benchLogger } from '../lib/logger.js';
import { MOCK_BASE, startMockApi } from '../lib/mock-api.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

const GUILD_ID = '1100000000000000001';
const API_KEY = 'fbk_BenchClaimsKey_000000000001';
/** A second server whose key's feed API answers after FAR_API_MS: a fast API across a network. */
const FAR_GUILD_ID = '1100000000000000002';
const FAR_API_KEY = 'fbk_BenchClaimsKey_000000000002';
const FAR_API_MS = 5;
const SAMPLE_MS = 50;

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const n = ctx.overrides?.n ?? (ctx.quick ? 200 : 3_000);
  const warmup = ctx.overrides?.warmup ?? (ctx.quick ? 50 : 300);
  const notes: string[] = [];
  const metrics: Metric[] = [];
  const details: Record<string, unknown> = {};

  // A. The claim's cost.
  const api = startMockApi({ latencyMs: { [FAR_API_KEY]: FAR_API_MS } });
  let redis: LocalServer | undefined;
  const leases: SlotLease[] = [];
  const bots: Record<string, BenchBot> = {};
  try {
    const memory = new MemoryLease();
    leases.push(memory);
    bots.memory = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger: benchLogger().logger, lease: memory });
    bots.sqlite = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger: benchLogger().logger });
    const redisMissing = serverBinariesMissing('redis');
    if (redisMissing) notes.push(`Redis left out: ${redisMissing}.`);
    else {
      redis = await startRedis();
      const lease = await RedisLease.open(await redis.newDatabase(), { waitForConnection: true });
      leases.push(lease);
      bots.redis = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger: benchLogger().logger, lease });
    }
    for (const bot of Object.values(bots)) {
      await bot.setKey(GUILD_ID, API_KEY);
      await bot.setKey(FAR_GUILD_ID, FAR_API_KEY);
    }
    const users = Array.from({ length: 50 }, (_, i) => String(1400000000000000100n + BigInt(i)));
    let u = 0;
    const once = async (bot: BenchBot, guildId = GUILD_ID): Promise<number> => {
      const raw = chatInput('feed', 'list', {}, { guildId, userId: users[u++ % users.length]! });
      const acked = bot.capture.callback(raw.id);
      const t0 = performance.now();
      dispatch(bot.app.client, raw);
      const { at } = await acked;
      await bot.app.router.drain();
      return at - t0;
    };
    const names = Object.keys(bots);
    ctx.log(`  claim cost: ${warmup} warm-up, then ${n} each per API, alternating (${names.join(', ')})`);
    for (let i = 0; i < warmup; i++) for (const name of names) await once(bots[name]!);
    const measure = async (guildId: string): Promise<Record<string, number[]>> => {
      const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < names.length; k++) {
          const name = names[(i + k) % names.length]!;
          samples[name]!.push(await once(bots[name]!, guildId));
        }
      }
      return samples;
    };
    for (const [where, guildId] of [
      ['an API answering at once', GUILD_ID],
      [`an API ${FAR_API_MS} ms away`, FAR_GUILD_ID],
    ] as const) {
      ctx.log(`  ${where}`);
      const samples = await measure(guildId);
      const base = summarize(samples.memory!);
      details[`latencyMs, ${where}`] = Object.fromEntries(names.map((name) => [name, roundSummary(summarize(samples[name]!))]));
      for (const name of names.filter((x) => x !== 'memory')) {
        const s = summarize(samples[name]!);
        const r = ratio(s.p99, base.p99);
        metrics.push({ name: `p99 dispatch→callback, claims in ${name}, ${where}`, unit: 'ms', value: round(s.p99, 3), baseline: round(base.p99, 3), ratio: r, target: '≤ 1.15× baseline', met: r === null ? null : r <= 1.15 });
        metrics.push({ name: `p50 added by the claim, ${name}, ${where}`, unit: 'µs', value: Math.round((s.p50 - base.p50) * 1000), baseline: 0 });
      }
    }
  } finally {
    for (const bot of Object.values(bots)) await bot.close().catch(() => undefined);
    for (const lease of leases) await lease.close();
    await redis?.stop();
    await api.close();
  }

  // B. Seconds without a ready process, blue/green against stop-then-start.
  if (ctx.overrides?.skipDeploy) notes.push('Deploy gap left out (overrides.skipDeploy).');
  else {
    const gap = await deployGaps(ctx);
    details.deploy = gap;
    metrics.push({ name: 'seconds without a ready process, blue/green deploy', unit: 's', value: gap.blueGreen, baseline: gap.stopThenStart, ratio: ratio(gap.blueGreen, gap.stopThenStart), target: '0 s', met: gap.blueGreen === 0 });
  }

  return {
    id: 12,
    key: 'claims-and-deploys',
    title: 'Exactly once and deploys',
    baseline: 'A: the same bot claiming in its own memory; B: a stop-then-start deploy',
    params: { n, warmup },
    metrics,
    details,
    notes,
    durationMs: Math.round(performance.now() - started),
  };
}

async function readyz(port: number): Promise<boolean> {
  try {
    const res = await request(`http://127.0.0.1:${port}/readyz`, { headersTimeout: 1_000, bodyTimeout: 1_000 });
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

/** Samples both ports every SAMPLE_MS while `deploy` runs; seconds in which neither was ready. */
async function gapDuring(ports: number[], deploy: () => Promise<void>): Promise<number> {
  let done = false;
  let missing = 0;
  const sampling = (async () => {
    while (!done) {
      const t0 = performance.now();
      if (!(await Promise.all(ports.map(readyz))).includes(true)) missing += 1;
      await new Promise((r) => setTimeout(r, Math.max(0, SAMPLE_MS - (performance.now() - t0))));
    }
  })();
  try {
    await deploy();
  } finally {
    done = true;
    await sampling;
  }
  return round((missing * SAMPLE_MS) / 1000, 2);
}

async function deployGaps(ctx: ScenarioContext): Promise<{ blueGreen: number; stopThenStart: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-deploy-'));
  const ports = [await freePort(), await freePort()] as const;
  const stack = await Stack.start({ dataDir: dir, logger: benchLogger().logger });
  const waitReady = async (port: number) => {
    const deadline = Date.now() + 60_000;
    while (!(await readyz(port))) {
      if (Date.now() > deadline) throw new Error(`no ready process on ${port} within 60 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    ctx.log('  deploy gap: blue/green, then stop-then-start');
    const blue = stack.spawnBot({ env: { METRICS_PORT: String(ports[0]) } });
    await waitReady(ports[0]);
    // Discord lets a shard identify once per 5 s: a deploy comes long after the last start.
    await new Promise((r) => setTimeout(r, 5_500));
    let green = stack.spawnBot({ env: { METRICS_PORT: String(ports[1]) } });
    const blueGreen = await gapDuring([...ports], async () => {
      await waitReady(ports[1]);
      await blue.stop();
    });
    await new Promise((r) => setTimeout(r, 5_500));
    const stopThenStart = await gapDuring([...ports], async () => {
      await green.stop();
      green = stack.spawnBot({ env: { METRICS_PORT: String(ports[1]) } });
      await waitReady(ports[1]);
    });
    await green.stop();
    return { blueGreen, stopThenStart };
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
