/**
 * Scenario 13 — what OpenTelemetry tracing costs (src/tracing/).
 *
 * A. Start-up without OTEL_*: the compiled bot of this tree against the compiled bot of the commit
 *    before tracing was added, side by side, runs alternating (as scenario 8: spawn → the `ready`
 *    log line, then VmRSS of the bot process after a settle time; the Discord emulator, 1 guild).
 *    Also the CPU time the bot had used when its `ready` line arrived, less sensitive than the
 *    wall clock to other work on a shared machine. The before is the parent of the first commit
 *    that added src/tracing/tracer.ts (HEAD while that file is not committed;
 *    BENCH_TRACING_BASELINE_REF=<ref> names another), checked out in a temporary `git worktree`
 *    whose node_modules is a link to this checkout's, and compiled there with
 *    `tsc -b tsconfig.build.json`. Its workspace packages resolve through node_modules/@feedbot to
 *    this checkout's packages (their dist from this checkout's build): the bot itself is what
 *    differs. "Now" is the working tree as it stands, uncommitted changes included.
 * B. Tracing on against off, in one process: `/feed list` through bench bots (claims in memory, as
 *    scenario 12's baseline), dispatch → interaction callback, one interaction per event-loop turn,
 *    the arms rotating. "off" is a bot created while the no-op tracer is installed; then
 *    OpenTelemetry starts in this process (`startTracing`, OTLP/HTTP protobuf to a receiver on
 *    loopback that answers 200 and counts the spans by name) and a second bot is created under it
 *    (its Discord REST wrapped at creation): "on". During each "off" sample the no-op tracer is
 *    installed again. A control arm runs the second bot under the no-op tracer: the wrapper and the
 *    difference between two bots, without spans. What stays process-wide once OpenTelemetry has
 *    started, for every arm: its AsyncLocalStorage context manager and the batch processor's
 *    exports. Both would slow "off" too, which lowers the ratio; "off" before OpenTelemetry started
 *    (same bot, earlier, not interleaved) is in the details and notes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { setImmediate } from 'node:timers/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { context, diag, propagation, trace } from '@opentelemetry/api';
import { generateGuilds, makeBotToken, startEmulator } from '@feedbot/discord-emulator';
import { MemoryLease } from '../../src/leases/lease-memory.js';
import { NOOP_TRACER, installTracer, startTracing, tracer, type Tracing } from '../../src/tracing/tracer.js';
import { BENCH_SECRET, startBenchBot, type BenchBot } from '../lib/bot.js';
import { REPO_ROOT } from '../lib/child.js';
import { chatInput, dispatch } from '../lib/discord.js';
import { benchLogger } from '../lib/logger.js';
import { MOCK_BASE, startMockApi } from '../lib/mock-api.js';
import { spawnTimed, type TreeMemory } from '../lib/process-tree.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import { sleep, withTimeout } from '../lib/time.js';
import type { ScenarioContext } from './types.js';

const APP_ID = '1200000000000000001';
const GUILD_ID = '1100000000000000001';
const API_KEY = 'fbk_BenchTracingKey_00000000001';
/** A second server whose feed API answers after FAR_API_MS (as in scenario 12). */
const FAR_GUILD_ID = '1100000000000000002';
const FAR_API_KEY = 'fbk_BenchTracingKey_00000000002';
const FAR_API_MS = 5;
const STARTUP_GOAL = 1.02;
const LATENCY_GOAL = 1.15;

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const metrics: Metric[] = [];
  const notes: string[] = [];
  const details: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};

  if (ctx.overrides?.skipStartup) notes.push('Start-up left out (overrides.skipStartup).');
  else await startup(ctx, { metrics, notes, details, params });
  await latency(ctx, { metrics, notes, details, params });

  return {
    id: 13,
    key: 'tracing',
    title: 'Tracing',
    baseline: 'A: the compiled bot of the commit before tracing was added, started alternately with this tree’s; B: the same bot (createBot) with tracing off, alternating in the same process',
    params,
    metrics,
    details,
    notes,
    durationMs: Math.round(performance.now() - started),
  };
}

interface Out {
  metrics: Metric[];
  notes: string[];
  details: Record<string, unknown>;
  params: Record<string, unknown>;
}

function git(args: string[], cwd = REPO_ROOT): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The commit before tracing: BENCH_TRACING_BASELINE_REF, else the parent of the commit that added tracer.ts, else HEAD. */
function baselineRef(): { ref: string; why: string } {
  const override = process.env.BENCH_TRACING_BASELINE_REF;
  if (override) return { ref: override, why: 'BENCH_TRACING_BASELINE_REF' };
  const added = git(['log', '--diff-filter=A', '--format=%H', '--', 'src/tracing/tracer.ts']).split('\n').filter(Boolean).at(-1);
  if (added) return { ref: `${added}^`, why: `parent of ${added.slice(0, 7)}, which added src/tracing/tracer.ts` };
  return { ref: 'HEAD', why: 'HEAD: src/tracing/tracer.ts is not committed yet' };
}

/** `tsc -b tsconfig.build.json` in `cwd`; a failed build counts only when it left no bot to start. */
function build(cwd: string, ctx: ScenarioContext): string | undefined {
  const t0 = performance.now();
  try {
    execFileSync(process.execPath, [join(cwd, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    ctx.log(`    built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return undefined;
  } catch (error) {
    const output = String((error as { stdout?: Buffer }).stdout ?? '') + String((error as { stderr?: Buffer }).stderr ?? '');
    if (!existsSync(join(cwd, 'dist/src/index.js'))) throw new Error(`tsc -b tsconfig.build.json failed in ${cwd}:\n${output.slice(-3000)}`);
    return output.split('\n').filter(Boolean).slice(0, 3).join(' / ');
  }
}

type Side = 'now' | 'before';

interface StartRun {
  readyMs: number;
  /** CPU time the bot process had used when its `ready` line was read (all threads). */
  cpuMs: number;
  memory: TreeMemory;
}

/** CPU time of a process so far, summed over its threads (/proc/<pid>/task/<tid>/schedstat, ns). */
function cpuMsOf(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread has just ended.
    }
  }
  return ns / 1e6;
}

async function startup(ctx: ScenarioContext, out: Out): Promise<void> {
  const runs = ctx.overrides?.runs ?? (ctx.quick ? 2 : 21);
  const settleMs = ctx.quick ? 300 : 2_000;
  const { ref, why } = baselineRef();
  const commit = git(['rev-parse', '--short', `${ref}^{commit}`]);
  const head = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  ctx.log('  build now (this working tree): tsc -b tsconfig.build.json');
  const nowWarning = build(REPO_ROOT, ctx);

  const worktree = mkdtempSync(join(tmpdir(), 'feedbot-bench-tracing-before-'));
  rmSync(worktree, { recursive: true, force: true });
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-tracing-'));
  let added = false;
  const results: Record<Side, StartRun[]> = { now: [], before: [] };
  try {
    ctx.log(`  build before (${commit}, ${why}) in a git worktree`);
    git(['worktree', 'add', '--detach', worktree, commit]);
    added = true;
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(worktree, 'node_modules'), 'dir');
    const beforeWarning = build(worktree, ctx);
    if (existsSync(join(worktree, 'src/tracing/tracer.ts'))) throw new Error(`the before (${commit}) already has src/tracing/tracer.ts: name another with BENCH_TRACING_BASELINE_REF`);
    for (const [side, warning] of [['now', nowWarning], ['before', beforeWarning]] as const) {
      if (warning) out.notes.push(`The ${side} build reported errors but emitted the bot: ${warning}`);
    }

    const token = makeBotToken(APP_ID);
    const emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: generateGuilds(1), identifyWindowMs: 0 });
    try {
      const once = async (side: Side): Promise<StartRun> => {
        let cpuMs = Number.NaN;
        const child = spawnTimed({
          command: process.execPath,
          args: ['--enable-source-maps', join(side === 'now' ? REPO_ROOT : worktree, 'dist/src/index.js')],
          // Not the repository: a .env there must not change what is measured.
          cwd: dir,
          // The whole environment: no OTEL_* (spawnTimed passes only PATH and HOME besides).
          env: {
            NODE_ENV: 'production',
            DISCORD_TOKEN: token,
            DISCORD_API_URL: emu.apiUrl,
            FEED_API_URL: 'https://127.0.0.1:9/v1',
            KEY_ENCRYPTION_SECRET: BENCH_SECRET.toString('base64'),
            DATABASE_URL: join(dir, `keys-${side}.sqlite`),
            LOG_LEVEL: 'info',
            LOG_PRETTY: 'false',
          },
          readyWhen: (line) => {
            if (!line.includes('"msg":"ready"')) return false;
            // The line carries the bot's pid (pino): its CPU time is read as the line arrives.
            const pid = Number(/"pid":(\d+)/.exec(line)?.[1]);
            if (Number.isNaN(cpuMs) && pid > 0) cpuMs = cpuMsOf(pid);
            return true;
          },
        });
        try {
          const readyMs = await withTimeout(child.ready, 60_000, `${side} READY`).catch((error: unknown) => {
            throw new Error(`${String(error)}\n${child.output.slice(-10).join('\n')}`);
          });
          await sleep(settleMs);
          const memory = child.memory();
          if (child.output.some((line) => line.includes('OpenTelemetry') || line.includes('traces are exported'))) throw new Error(`the ${side} bot started tracing without OTEL_*`);
          return { readyMs, cpuMs, memory };
        } finally {
          await child.stop();
        }
      };
      ctx.log(`  ${runs} start(s) each, alternating now and before`);
      // A first start of each, not counted: the page cache holds both builds afterwards.
      await once('now');
      await once('before');
      for (let i = 0; i < runs; i++) {
        const order: Side[] = i % 2 === 0 ? ['now', 'before'] : ['before', 'now'];
        for (const side of order) results[side].push(await once(side));
      }
    } finally {
      await emu.close();
    }
  } finally {
    if (added) {
      try {
        git(['worktree', 'remove', '--force', worktree]);
      } catch (error) {
        ctx.log(`  git worktree remove failed: ${String(error)}`);
      }
    }
    rmSync(worktree, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (side: Side, pick: (r: StartRun) => number) => summarize(results[side].map(pick)).p50;
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const ready = (side: Side) => median(side, (r) => r.readyMs);
  const rss = (side: Side) => median(side, (r) => r.memory.leafRss);
  const cpu = (side: Side) => median(side, (r) => r.cpuMs);
  const readyRatio = ratio(ready('now'), ready('before'));
  const rssRatio = ratio(rss('now'), rss('before'));
  const target = `≤ ${STARTUP_GOAL}× before`;
  out.params.startup = { runs, settleMs, guilds: 1, before: commit, beforeChosenAs: why, now: `${head}${dirty ? ' with uncommitted changes' : ''}`, measured: 'spawn → "ready" log line; VmRSS of the bot process from /proc after the settle time, no forced GC; no OTEL_* in the environment' };
  out.metrics.push(
    { name: 'READY after spawn, median, no OTEL_*: now vs before tracing', unit: 'ms', value: round(ready('now'), 0), baseline: round(ready('before'), 0), ratio: readyRatio, target, met: readyRatio === null ? null : readyRatio <= STARTUP_GOAL },
    { name: 'RSS at READY, bot process, median, no OTEL_*: now vs before tracing', unit: 'MB', value: mb(rss('now')), baseline: mb(rss('before')), ratio: rssRatio, target, met: rssRatio === null ? null : rssRatio <= STARTUP_GOAL },
    { name: 'CPU time to READY, bot process, median, no OTEL_*: now vs before tracing', unit: 'ms', value: round(cpu('now'), 0), baseline: round(cpu('before'), 0), ratio: ratio(cpu('now'), cpu('before')) },
  );
  out.details.startup = Object.fromEntries(
    (['now', 'before'] as const).map((side) => [side, { readyMs: results[side].map((r) => round(r.readyMs, 0)), rssMb: results[side].map((r) => mb(r.memory.leafRss)), cpuMs: results[side].map((r) => round(r.cpuMs, 0)), processes: results[side][0]?.memory.processes }]),
  );
  out.notes.push(
    `Start-up, medians of ${runs} alternating starts each (1 guild, no OTEL_*): READY after ${round(ready('now'), 0)} ms now against ${round(ready('before'), 0)} ms before tracing (${commit}); the bot process holds ${mb(rss('now'))} MB against ${mb(rss('before'))} MB ${settleMs} ms after READY, and had used ${round(cpu('now'), 0)} against ${round(cpu('before'), 0)} ms of CPU at READY (all threads; less sensitive than wall-clock time to other work on the machine).`,
  );
}

/** Span names in an OTLP ExportTraceServiceRequest, protobuf (decoded by hand: three nested messages) or JSON. */
function spanNames(body: Buffer, contentType: string | undefined): string[] {
  if (contentType?.includes('json')) {
    const json = JSON.parse(body.toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: { name: string }[] }[] }[] };
    return (json.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((s) => s.name)));
  }
  const names: string[] = [];
  // ExportTraceServiceRequest.resource_spans = 1; ResourceSpans.scope_spans = 2; ScopeSpans.spans = 2; Span.name = 5.
  for (const rs of fieldsOf(body, 1)) for (const ss of fieldsOf(rs, 2)) for (const span of fieldsOf(ss, 2)) names.push(fieldsOf(span, 5)[0]?.toString('utf8') ?? '?');
  return names;
}

/** The length-delimited values of field `wanted` in one protobuf message. */
function fieldsOf(buf: Buffer, wanted: number): Buffer[] {
  const found: Buffer[] = [];
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = buf[pos++];
      if (byte === undefined) throw new Error('truncated protobuf');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (pos < buf.length) {
    const tag = varint();
    const wire = tag % 8;
    const field = Math.floor(tag / 8);
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const length = varint();
      if (field === wanted) found.push(buf.subarray(pos, pos + length));
      pos += length;
    } else throw new Error(`protobuf wire type ${wire} not expected`);
  }
  return found;
}

/**
 * An OTLP/HTTP receiver on loopback: 200 to every POST /v1/traces. Batches are kept as received and
 * decoded only when counted, after the measurements: the collector would be another process.
 */
async function startReceiver(): Promise<{ url: string; spans(): Map<string, number>; batches: () => number; contentTypes: Set<string>; close(): Promise<void> }> {
  const bodies: { body: Buffer; contentType: string | undefined; gzip: boolean }[] = [];
  const contentTypes = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const contentType = req.headers['content-type'];
        contentTypes.add(contentType ?? '?');
        bodies.push({ body: Buffer.concat(chunks), contentType, gzip: req.headers['content-encoding'] === 'gzip' });
        res.writeHead(200, { 'content-type': contentType ?? 'application/x-protobuf' }).end();
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    spans() {
      const count = new Map<string, number>();
      for (const { body, contentType, gzip } of bodies) {
        for (const name of spanNames(gzip ? gunzipSync(body) : body, contentType)) count.set(name, (count.get(name) ?? 0) + 1);
      }
      return count;
    },
    batches: () => bodies.length,
    contentTypes,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Claims in memory (scenario 12's baseline) on a clock that moves a day per claim, so each name has
 * expired by the next claim. MemoryLease scans its whole map on every claim once it holds more than
 * 10,000 live names (about 60 µs a claim at 13,000 on this machine), and one bot here answers over
 * 13,000 interactions within a claim's 15 minutes; with the ordinary clock the first bot's claims
 * slowed down late in the run. Production never uses MemoryLease (tests and benchmarks only).
 */
function benchLease(): MemoryLease {
  let t = Date.now();
  return new MemoryLease(() => (t += 86_400_000));
}

/** The arms of B: which bot, under which tracer. */
type Arm = 'off' | 'on' | 'onNoop';
const ARMS: readonly Arm[] = ['off', 'on', 'onNoop'];
const ARM_LABEL: Record<Arm, string> = { off: 'tracing off', on: 'tracing on', onNoop: 'the traced bot under the no-op tracer' };

async function latency(ctx: ScenarioContext, out: Out): Promise<void> {
  const n = ctx.overrides?.n ?? (ctx.quick ? 200 : 3_000);
  const warmup = ctx.overrides?.warmup ?? (ctx.quick ? 50 : 300);
  if (tracer().enabled) throw new Error('a tracer is already installed in the bench process');
  const api = startMockApi({ latencyMs: { [FAR_API_KEY]: FAR_API_MS } });
  const receiver = await startReceiver();
  const tracingLog = benchLogger({ keep: ['OpenTelemetry', 'traces are exported'] });
  const bots: Partial<Record<'off' | 'on', BenchBot>> = {};
  let tracing: Tracing | undefined;
  let otelStarted = false;
  const apis = [
    ['an API answering at once', GUILD_ID],
    [`an API ${FAR_API_MS} ms away`, FAR_GUILD_ID],
  ] as const;
  let dispatchedOn = 0;
  try {
    const newBot = async () => {
      const bot = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger: benchLogger().logger, lease: benchLease() });
      await bot.setKey(GUILD_ID, API_KEY);
      await bot.setKey(FAR_GUILD_ID, FAR_API_KEY);
      return bot;
    };
    // Created under the no-op tracer: its Discord REST is not wrapped.
    bots.off = await newBot();
    const users = Array.from({ length: 50 }, (_, i) => String(1400000000000000100n + BigInt(i)));
    let u = 0;
    const once = async (arm: Arm, guildId: string): Promise<number> => {
      const bot = arm === 'off' ? bots.off! : bots.on!;
      // One interaction per turn of the event loop, as gateway events arrive: the exporter's socket
      // gets its turn between them (back to back, the in-memory path never reaches the poll phase
      // and the batch processor's queue overflows).
      await setImmediate();
      // Off arms run under the no-op tracer, interaction and drain included; then OpenTelemetry's is back.
      const restore = arm !== 'on' && otelStarted ? installTracer(NOOP_TRACER) : undefined;
      try {
        const raw = chatInput('feed', 'list', {}, { guildId, userId: users[u++ % users.length]! });
        const acked = bot.capture.callback(raw.id);
        const t0 = performance.now();
        dispatch(bot.app.client, raw);
        const { at } = await acked;
        await bot.app.router.drain();
        if (arm === 'on') dispatchedOn += 1;
        return at - t0;
      } finally {
        restore?.();
      }
    };

    // Off before OpenTelemetry started (not interleaved): what its process-wide parts do to "off".
    ctx.log(`  tracing off before OpenTelemetry starts: ${warmup * 3} warm-up, then ${n} per API`);
    for (let i = 0; i < warmup * 3; i++) await once('off', GUILD_ID);
    const pristine: Record<string, number[]> = {};
    for (const [where, guildId] of apis) {
      pristine[where] = [];
      for (let i = 0; i < n; i++) pristine[where].push(await once('off', guildId));
    }

    tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, tracingLog.logger);
    otelStarted = tracing !== undefined;
    if (!tracing || !tracer().enabled) throw new Error('startTracing did not install OpenTelemetry');
    // Created under OpenTelemetry: its Discord REST is wrapped in client spans.
    bots.on = await newBot();

    ctx.log(`  ${ARMS.map((a) => ARM_LABEL[a]).join(', ')}: ${warmup} warm-up, then ${n} each per API, rotating`);
    for (let i = 0; i < warmup; i++) for (const arm of ARMS) await once(arm, GUILD_ID);
    for (const [where, guildId] of apis) {
      ctx.log(`  ${where}`);
      const samples: Record<Arm, number[]> = { off: [], on: [], onNoop: [] };
      const batchesBefore = receiver.batches();
      const phaseStarted = performance.now();
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < ARMS.length; k++) {
          const arm = ARMS[(i + k) % ARMS.length]!;
          samples[arm].push(await once(arm, guildId));
        }
      }
      const phaseS = (performance.now() - phaseStarted) / 1000;
      const batches = receiver.batches() - batchesBefore;
      const off = summarize(samples.off);
      const on = summarize(samples.on);
      const control = summarize(samples.onNoop);
      const before = summarize(pristine[where]!);
      const r = ratio(on.p99, off.p99);
      out.metrics.push(
        { name: `p99 dispatch→callback, tracing on vs off, ${where}`, unit: 'ms', value: round(on.p99, 3), baseline: round(off.p99, 3), ratio: r, target: `≤ ${LATENCY_GOAL}× off`, met: r === null ? null : r <= LATENCY_GOAL },
        { name: `p50 dispatch→callback, tracing on vs off, ${where}`, unit: 'ms', value: round(on.p50, 3), baseline: round(off.p50, 3), ratio: ratio(on.p50, off.p50) },
        { name: `p99 dispatch→callback, traced bot under the no-op tracer vs off (control), ${where}`, unit: 'ms', value: round(control.p99, 3), baseline: round(off.p99, 3), ratio: ratio(control.p99, off.p99) },
        { name: `p50 dispatch→callback, traced bot under the no-op tracer vs off (control), ${where}`, unit: 'ms', value: round(control.p50, 3), baseline: round(off.p50, 3), ratio: ratio(control.p50, off.p50) },
      );
      out.details[`latencyMs, ${where}`] = { on: roundSummary(on), off: roundSummary(off), tracedBotUnderNoopTracer: roundSummary(control), offBeforeOpenTelemetryStarted: roundSummary(before) };
      out.details[`phase, ${where}`] = { seconds: round(phaseS, 1), tracedInteractionsPerSecond: round(n / phaseS, 0), batchesExported: batches };
      const us = (ms: number) => Math.round(ms * 1000);
      out.notes.push(
        `${where}: p50 ${round(on.p50, 3)} ms on, ${round(off.p50, 3)} ms off (${us(on.p50 - off.p50)} µs added), ${round(control.p50, 3)} ms for the traced bot under the no-op tracer; p99 ${round(on.p99, 3)}, ${round(off.p99, 3)} and ${round(control.p99, 3)} ms. Off before OpenTelemetry started (earlier, not interleaved): p50 ${round(before.p50, 3)} ms, p99 ${round(before.p99, 3)} ms. ${n} traced interactions in ${round(phaseS, 1)} s (${round(n / phaseS, 0)}/s), ${batches} batch(es) exported meanwhile.`,
      );
    }
  } finally {
    for (const bot of Object.values(bots)) await bot.close().catch(() => undefined);
    // The last batches, then the process as it was: no tracer, no global OpenTelemetry state.
    await tracing?.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    diag.disable();
    await api.close();
    await receiver.close();
  }

  const byName = [...receiver.spans()].sort((a, b) => b[1] - a[1]);
  const received = byName.reduce((a, [, c]) => a + c, 0);
  // The interaction's span is renamed after its command ("interaction feed list").
  const interactionSpans = byName.filter(([name]) => name === 'interaction' || (name.startsWith('interaction ') && name !== 'interaction claim')).reduce((a, [, c]) => a + c, 0);
  const warnings = tracingLog.lines.filter((l) => l.includes('OpenTelemetry:')).map((l) => l.trim());
  out.params.latency = {
    n,
    warmup,
    command: '/feed list',
    lease: 'memory (scenario 12’s baseline), on a clock that expires each name before the next claim',
    pacing: 'one interaction per event-loop turn (setImmediate between samples)',
    exporter: 'OTLP/HTTP protobuf to a receiver on 127.0.0.1 in the bench process, answering 200',
    sampler: process.env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on (default)',
    batchProcessor: 'the SDK’s defaults (OTEL_BSP_* unset)',
  };
  out.details.spans = { received, byName: Object.fromEntries(byName), batches: receiver.batches(), contentTypes: [...receiver.contentTypes], interactionsSentTracingOn: dispatchedOn, sdkWarnings: warnings };
  out.metrics.push({ name: 'interaction spans received by the OTLP receiver vs interactions sent with tracing on', unit: 'spans', value: interactionSpans, baseline: dispatchedOn, ratio: ratio(interactionSpans, dispatchedOn), target: '= interactions', met: interactionSpans === dispatchedOn });
  out.notes.push(
    `Spans received: ${received} in ${receiver.batches()} batch(es) (${[...receiver.contentTypes].join(', ')}), ${interactionSpans} interaction spans for ${dispatchedOn} interactions sent with tracing on (warm-up included); by name: ${byName.map(([name, c]) => `${name} ${c}`).join(', ')}.`,
    'Off samples run under the no-op tracer in a process where OpenTelemetry has started: its AsyncLocalStorage context manager stays registered (the bot enters an AsyncLocalStorage of its own per interaction anyway) and the batch processor exports on its own schedule whichever arm is running. Both can slow "off" too, which would lower the ratio; the off figures from before OpenTelemetry started are beside them, but were taken earlier and not interleaved.',
    'Control arm: the bot created under OpenTelemetry (its Discord REST wrapped) run under the no-op tracer: what the wrapper and the second bot cost without any span, and how far two bots differ on this machine.',
  );
  if (warnings.length > 0) out.notes.push(`The SDK warned (at most one line a minute): ${warnings.map((w) => (JSON.parse(w) as { msg?: string }).msg ?? w).join('; ')}`);
}
