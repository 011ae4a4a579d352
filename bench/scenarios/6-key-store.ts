/**
 * Scenario 6 — key store, per backend. On SQLite, PostgreSQL and Redis in turn, 10,000 guilds'
 * keys are written and then read through the encrypted KeyStore (AES-256-GCM records, zod
 * validation, and on the shared servers the change announcement other processes' caches rely
 * on), against the raw Keyv adapter of the same backend storing the same objects unencrypted in
 * another namespace of the same file, database or server (bench/lib/key-store-backends.ts).
 * Operations alternate between the two (one at a time, each awaited), so the disk, the server and
 * the process state are the same for both. Reads use a KeyStore with its in-memory cache off:
 * every read goes to the backend and decrypts. Goal: at least 0.85× the raw adapter's throughput,
 * so encryption and validation stay a small part of a key's cost.
 */
import type { Keyv } from 'keyv';
import { KeyStore, type StoredKey } from '../../src/keys/store.js';
import { BENCH_SECRET, storedKey } from '../lib/bot.js';
import { BACKEND_KINDS, prepareBackend, type BackendKind } from '../lib/key-store-backends.js';
import { seeded } from '../lib/random.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

/** The key store keeps at least 0.85× the raw adapter's throughput on every backend. */
const GOAL = 0.85;
const RATE_TARGET = `≥ ${GOAL}× baseline`;
/** The same goal as latency: 1 ÷ 0.85. */
const LATENCY_TARGET = `≤ ${round(1 / GOAL)}× baseline`;

function guildIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => String(1100000000000100000n + BigInt(i)));
}

function apiKeyFor(i: number): string {
  return `fbk_${String(i).padStart(8, '0')}BenchKeyStoreKeyMaterial0000000`;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seeded(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function time(op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await op();
  return performance.now() - t0;
}

/** Times `a` and `b` once each, `a` first when `aFirst`: both sides go first equally often. */
async function alternate(aFirst: boolean, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  if (aFirst) {
    const ta = await time(a);
    return [ta, await time(b)];
  }
  const tb = await time(b);
  return [await time(a), tb];
}

interface Timings {
  encSet: number[];
  plainSet: number[];
  encGet: number[];
  plainGet: number[];
}

async function measure(store: KeyStore, plain: Keyv<StoredKey>, ids: readonly string[], log: (m: string) => void): Promise<Timings> {
  const t: Timings = { encSet: [], plainSet: [], encGet: [], plainGet: [] };
  // Connections, table creation and first-use costs of both sides, outside the figures.
  await store.get('1');
  await plain.get('1');

  log(`    set: ${ids.length} guilds each, alternating`);
  for (const [i, id] of ids.entries()) {
    const value = storedKey(apiKeyFor(i));
    const [enc, pl] = await alternate(i % 2 === 0, () => store.set(id, value), () => plain.set(id, value));
    t.encSet.push(enc);
    t.plainSet.push(pl);
  }

  log(`    get: ${ids.length} guilds each in random order, alternating`);
  let wrong = 0;
  for (const [n, i] of shuffled([...ids.keys()], 6).entries()) {
    const id = ids[i]!;
    let got: StoredKey | undefined;
    let gotPlain: StoredKey | undefined;
    const [enc, pl] = await alternate(
      n % 2 === 0,
      async () => (got = await store.get(id)),
      async () => (gotPlain = await plain.get(id)),
    );
    t.encGet.push(enc);
    t.plainGet.push(pl);
    if (got?.apiKey !== apiKeyFor(i) || gotPlain?.apiKey !== apiKeyFor(i)) wrong++;
  }
  if (wrong > 0) throw new Error(`${wrong} reads returned the wrong key`);
  return t;
}

const rate = (ms: number[]) => round(ms.length / (ms.reduce((a, b) => a + b, 0) / 1000));

function rateMetric(name: string, value: number, baseline: number): Metric {
  const r = ratio(value, baseline);
  return { name, unit: '/s', value, baseline, ratio: r, target: RATE_TARGET, met: r === null ? null : r >= GOAL };
}

function latencyMetric(name: string, value: number, baseline: number): Metric {
  const r = ratio(value, baseline);
  return { name, unit: 'ms', value: round(value), baseline: round(baseline), ratio: r, target: LATENCY_TARGET, met: r === null ? null : r <= 1 / GOAL };
}

function backendMetrics(kind: BackendKind, t: Timings): { metrics: Metric[]; details: Record<string, unknown> } {
  const [es, ps, eg, pg] = [summarize(t.encSet), summarize(t.plainSet), summarize(t.encGet), summarize(t.plainGet)];
  return {
    metrics: [
      rateMetric(`${kind}: set per second`, rate(t.encSet), rate(t.plainSet)),
      latencyMetric(`${kind}: set p99`, es.p99, ps.p99),
      rateMetric(`${kind}: get per second`, rate(t.encGet), rate(t.plainGet)),
      latencyMetric(`${kind}: get p99`, eg.p99, pg.p99),
    ],
    details: {
      set: { encrypted: roundSummary(es), plain: roundSummary(ps) },
      get: { encrypted: roundSummary(eg), plain: roundSummary(pg) },
    },
  };
}

function skippedMetrics(kind: BackendKind, reason: string): Metric[] {
  const row = (what: string, unit: string, target: string): Metric => ({
    name: `${kind}: ${what} (skipped: ${reason})`,
    unit,
    value: null,
    baseline: null,
    ratio: null,
    target,
    met: null,
  });
  return [
    row('set per second', '/s', RATE_TARGET),
    row('set p99', 'ms', LATENCY_TARGET),
    row('get per second', '/s', RATE_TARGET),
    row('get p99', 'ms', LATENCY_TARGET),
  ];
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const count = ctx.overrides?.guilds ?? (ctx.quick ? 500 : 10_000);
  const ids = guildIds(count);
  const metrics: Metric[] = [];
  const details: Record<string, unknown> = {};
  const backends: Record<string, string> = {};

  for (const kind of BACKEND_KINDS) {
    ctx.log(`  ${kind}:`);
    const prepared = await prepareBackend(kind);
    if (!prepared.ok) {
      ctx.log(`    skipped: ${prepared.skipped}`);
      metrics.push(...skippedMetrics(kind, prepared.skipped));
      backends[kind] = `skipped: ${prepared.skipped}`;
      continue;
    }
    const { backend } = prepared;
    try {
      backends[kind] = await backend.describe();
      const store = await KeyStore.open({ databaseUrl: backend.databaseUrl, secret: BENCH_SECRET, cacheSize: 0 });
      try {
        const measured = backendMetrics(kind, await measure(store, backend.baseline, ids, ctx.log));
        metrics.push(...measured.metrics);
        details[kind] = measured.details;
      } finally {
        await store.close();
      }
    } finally {
      await backend.close();
    }
  }

  return {
    id: 6,
    key: 'key-store',
    title: 'Key store',
    baseline:
      'the raw Keyv adapter of the same backend (@keyv/sqlite, @keyv/postgres, @keyv/redis), unencrypted, ' +
      'same file / database / server (another namespace), same process',
    params: { guilds: count, backends, keyStoreCache: 'off for reads' },
    metrics,
    details,
    notes: [
      `Goal: at least ${GOAL}× the raw adapter's throughput on every backend; the p99 rows state the same goal as latency (≤ 1 ÷ ${GOAL}).`,
      'SQLite writes are bound by fsync: each set is one autocommit transaction on a file opened with synchronous=FULL, for both sides.',
      'The PostgreSQL server runs with fsync=off and Redis without persistence (the local test servers): writes measure the round trip and the server, not the disk.',
      "On PostgreSQL and Redis a KeyStore set also sends the change announcement (pg_notify, PUBLISH) other bot processes' caches rely on; it is sent once the write is stored, without the caller waiting for it, and shares the connection pool with the next operations.",
      'In production the bot reads a key on every command through a 500-entry in-memory LRU; a hit costs microseconds. This scenario measures the miss path.',
    ],
    durationMs: Math.round(performance.now() - started),
  };
}
