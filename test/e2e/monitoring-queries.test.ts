/**
 * docs/monitoring against a real Prometheus: the Grafana dashboard (dashboard.json) and the rule
 * file (alerts.yml, loaded as shipped) must work on what the real bot exports. The real bot
 * process (METRICS_PORT, HEALTH_SWEEP_SECONDS=10) runs a story through the Discord emulator and
 * the HTTPS sandbox — commands, autocomplete, a feed API that hangs, resets and answers 503 (a
 * TLS proxy with the sandbox's certificate, faults per key), a key whose budget is spent (429,
 * then a local refusal), an interaction that arrives late (a missed deadline), health sweeps that
 * find a change, a weekly digest, a /feedbot forget — while Prometheus scrapes it every second.
 * Then every dashboard target (its template variables substituted) must return data from the
 * query API, every rule must be loaded and healthy, every recorded series must have data, and
 * every metric a rule reads must have some. Names the story cannot produce are in EXCEPTIONS
 * below, each with its reason; they must still be names the bot exports.
 *
 * prometheus comes from Debian's `prometheus` package: without it the Prometheus part is skipped
 * locally with a message, and fails in CI (CI=true). The static checks of the files always run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { Agent, request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '@feedbot/feed-api-contract';
import { Stack, freePort } from '@feedbot/playground';
import { snowflake, type InteractionInput } from '@feedbot/discord-emulator';
import type { APIInteraction } from 'discord-api-types/v10';
import { silentLogger } from '../../src/logger.js';
import { BotMetrics } from '../../src/ops/metrics.js';
import { HostOps } from '../../src/sharding/host-ops.js';
import { parseExposition, prometheusTool, sum } from '../ops/prom-text.js';
import { StoryStack, actor, storyGuild, titled } from './story-kit.js';
import { eventually } from './process-kit.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DASHBOARD = join(ROOT, 'docs/monitoring/dashboard.json');
const RULES = join(ROOT, 'docs/monitoring/alerts.yml');
const PROVISIONING = join(ROOT, 'docs/monitoring/grafana/provisioning');
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

/**
 * Metrics a dashboard target or a rule may read although this story cannot make them appear.
 * Keep it short: each one needs a reason, and must still be a name the bot exports.
 */
const EXCEPTIONS: Record<string, string> = {
  // Exported by the manager of `npm run start:sharded` only (src/sharding/host-ops.ts), never by
  // the single process this story runs; test/e2e/sharded.test.ts reads both from a manager.
  feedbot_shard_process_up: 'start:sharded manager only',
  feedbot_shard_process_restarts_total: 'start:sharded manager only (and a shard process must die)',
};

/** Grafana's template variables, as the test substitutes them (`instance`: the bot's target). */
const substitute = (expr: string, instance: string) =>
  expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__interval', '15s')
    .replaceAll('$__range', '10m')
    .replaceAll('${instance}', instance)
    .replaceAll('$instance', instance);

/** `feedbot_*`, `nodejs_*`, `process_*` metric names in a PromQL expression (not recorded series like `instance:feedbot_x:rate5m`). */
const metricNames = (expr: string): string[] => [...new Set([...expr.matchAll(/(?<![\w:"])((?:feedbot|nodejs|process)_[A-Za-z0-9_]+)(?![\w:"])/g)].map((m) => m[1]!))];

// ─── The files ─────────────────────────────────────────────────────────────────────────────────

interface Target {
  expr: string;
  refId: string;
  datasource?: unknown;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: unknown;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  id?: unknown;
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: { name: string; type: string; query: unknown; datasource?: unknown }[] };
  panels: Panel[];
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dataPanels = allPanels.filter((p) => p.type !== 'row');
const targets = dataPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));

/** Every name the bot's registries export, as sample names (histograms as _bucket, _sum, _count). */
async function exportedNames(): Promise<Set<string>> {
  const bot = new BotMetrics();
  const manager = new HostOps({ ids: [], shard: () => undefined, stopping: () => false });
  const names = new Set<string>();
  for (const registry of [bot.registry, manager.registry]) {
    for (const m of await registry.getMetricsAsJSON()) {
      const type = String(m.type);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(m.name + suffix);
      else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(m.name + suffix);
      else names.add(m.name);
    }
  }
  return names;
}

/** The rules of alerts.yml, read from the file itself (block style: `- alert: Name` / `- record: name`). */
function rulesInFile(): { type: 'alerting' | 'recording'; name: string }[] {
  const text = readFileSync(RULES, 'utf8');
  return [...text.matchAll(/^\s*-\s+(alert|record):\s*(\S+)\s*$/gm)].map((m) => ({ type: m[1] === 'alert' ? 'alerting' : 'recording', name: m[2]! }));
}

describe('docs/monitoring: the dashboard and its provisioning', () => {
  it('dashboard.json is provisionable as is: no id, a stable uid, one Prometheus data source variable that every panel and target uses', () => {
    expect(dashboard.id).toBeUndefined();
    expect(dashboard).toMatchObject({ uid: 'feedbot-overview', title: 'feedbot' });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const variables = dashboard.templating.list;
    expect(variables.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const v of variables.filter((v) => v.type === 'query')) expect(v.datasource, `variable ${v.name}`).toEqual(DATASOURCE);
    for (const p of dataPanels) {
      expect(p.datasource, `panel "${p.title}"`).toEqual(DATASOURCE);
      expect(p.targets?.length, `panel "${p.title}" has targets`).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.datasource, `a target of "${p.title}"`).toEqual(DATASOURCE);
    }
    const ids = allPanels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of allPanels) expect(p.gridPos.x + p.gridPos.w, `panel "${p.title}" fits 24 columns`).toBeLessThanOrEqual(24);
    const overlap = (a: Panel, b: Panel) =>
      a.gridPos.x < b.gridPos.x + b.gridPos.w && b.gridPos.x < a.gridPos.x + a.gridPos.w && a.gridPos.y < b.gridPos.y + b.gridPos.h && b.gridPos.y < a.gridPos.y + a.gridPos.h;
    const overlapping = allPanels.flatMap((a, i) => allPanels.slice(i + 1).filter((b) => overlap(a, b)).map((b) => `${a.title} / ${b.title}`));
    expect(overlapping).toEqual([]);
    // rate() windows follow the scrape interval Grafana knows, never a fixed one.
    for (const t of targets) for (const m of t.expr.matchAll(/\b(?:i?rate)\([^[]*\[([^\]]+)\]/g)) expect(m[1], `${t.panel}: ${t.expr}`).toBe('$__rate_interval');
    expect(targets.length).toBeGreaterThan(30);
  });

  it('every feedbot_*, nodejs_* and process_* name the dashboard and the rules read is one the bot exports', async () => {
    const exported = await exportedNames();
    const read = new Set([...targets.flatMap((t) => metricNames(t.expr)), ...metricNames(readFileSync(RULES, 'utf8'))]);
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((name) => !exported.has(name))).toEqual([]);
    for (const name of Object.keys(EXCEPTIONS)) expect(exported.has(name), `exception ${name} is exported`).toBe(true);
  });

  it('the provisioning examples: a file provider for the dashboard folder, a Prometheus data source', () => {
    const provider = readFileSync(join(PROVISIONING, 'dashboards/feedbot.yaml'), 'utf8');
    expect(provider).toMatch(/^apiVersion: 1$/m);
    expect(provider).toMatch(/^\s+type: file$/m);
    expect(provider).toMatch(/^\s+path: \S+/m);
    const source = readFileSync(join(PROVISIONING, 'datasources/prometheus.yaml'), 'utf8');
    expect(source).toMatch(/^apiVersion: 1$/m);
    expect(source).toMatch(/^\s+type: prometheus$/m);
  });
});

// ─── A feed API that fails on demand ───────────────────────────────────────────────────────────

type Fault = 'hang' | 'reset' | 503;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'upgrade', 'proxy-connection']);

/**
 * An HTTPS proxy in front of the sandbox with the sandbox's own certificate (the bot trusts it
 * through FEED_API_CA_FILE as before). It forwards every request, except the next ones made with
 * a key given faults: `hang` (no answer: the bot's time-out), `reset` (the connection is cut),
 * 503 (a server error), one fault per request, in order.
 */
class FaultyFeedApi {
  private readonly faults = new Map<string, Fault[]>();
  private readonly sockets = new Set<Socket>();
  private readonly agent: Agent;

  private constructor(
    private readonly server: HttpsServer,
    private readonly upstream: string,
    ca: string,
  ) {
    this.agent = new Agent({ connect: { ca } });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res));
  }

  static async start(upstream: string, tls: { cert: string; key: string; ca: string }): Promise<{ api: FaultyFeedApi; url: string }> {
    const server = createHttpsServer({ cert: tls.cert, key: tls.key });
    const api = new FaultyFeedApi(server, upstream, tls.ca);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { api, url: `https://127.0.0.1:${(server.address() as { port: number }).port}` };
  }

  inject(key: string, ...faults: Fault[]): void {
    this.faults.set(key, [...(this.faults.get(key) ?? []), ...faults]);
  }

  pending(key: string): number {
    return this.faults.get(key)?.length ?? 0;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.agent.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const fault = key ? this.faults.get(key)?.shift() : undefined;
    if (fault === 'hang') return; // the bot gives up at FEED_API_TIMEOUT_MS; close() cuts what is left
    if (fault === 'reset') return void req.socket.destroy();
    if (fault === 503) {
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { codigo: 'internal_error', mensaje: 'Servicio no disponible' } }));
    }
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
      const up = await request(`${this.upstream}${req.url ?? '/'}`, {
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        dispatcher: this.agent,
      });
      const body = Buffer.from(await up.body.arrayBuffer());
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(up.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(up.statusCode, out);
      res.end(body);
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  }
}

// ─── The story, scraped by a real Prometheus ───────────────────────────────────────────────────

const prometheus = prometheusTool('prometheus', 'the dashboard and rule queries against a real Prometheus');


interface QueryResult {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe.skipIf(prometheus.skip)('docs/monitoring against a real Prometheus scraping the real bot', () => {
  const main = storyGuild(41, 'en', 'Monitoring: commands');
  const budget = storyGuild(42, 'en', 'Monitoring: budget');
  const swept = storyGuild(43, 'en', 'Monitoring: sweeps');
  let dir: string;
  let s: StoryStack;
  let faulty: FaultyFeedApi | undefined;
  let server: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  const stderr: string[] = [];
  let metricsUrl: string;
  let target: string;
  let api: string;

  const scrape = async () => parseExposition(await (await request(`${metricsUrl}/metrics`)).body.text());
  /** Waits, bounded, until the bot's own /metrics counts at least `min` of `name` (with `labels`). */
  const counted = (name: string, labels: Record<string, string> = {}, min = 1, timeoutMs = 45_000) =>
    eventually(`${name}${JSON.stringify(labels)} >= ${min} in /metrics`, timeoutMs, async () => (sum(await scrape(), name, labels) >= min ? true : undefined));

  async function query(promql: string): Promise<QueryResult> {
    const res = await request(`${api}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: promql }).toString(),
    });
    return (await res.body.json()) as QueryResult;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-monitoring-'));
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    target = `127.0.0.1:${metricsPort}`;
    const stack = await Stack.start({
      dataDir: join(dir, 'stack'),
      logger: silentLogger(),
      extraGuilds: [main.guild, budget.guild, swept.guild],
      // Sweeps every 10 s (the minimum); an attempt that hangs costs 2 s instead of 8.
      botEnv: { METRICS_PORT: String(metricsPort), HEALTH_SWEEP_SECONDS: '10', FEED_API_TIMEOUT_MS: '2000' },
    });
    s = new StoryStack(stack, dir);
    const sandboxDir = join(dir, 'stack', 'sandbox');
    const started = await FaultyFeedApi.start(stack.sandbox.url, {
      cert: readFileSync(join(sandboxDir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(sandboxDir, 'key.pem'), 'utf8'),
      ca: stack.sandbox.caPem,
    });
    faulty = started.api;
    stack.env.FEED_API_URL = started.url;
    for (const g of [main, budget, swept]) await stack.sandbox.admin.createServer(g.id, 'server');
    await stack.deployCommands({ global: true });
    await stack.startBot(60_000);

    const promPort = await freePort();
    api = `http://127.0.0.1:${promPort}`;
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${JSON.stringify(RULES)}`,
        'scrape_configs:',
        '  - job_name: feedbot',
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    server = spawn(
      prometheus.path(),
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'prometheus')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    server.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    exited = new Promise<void>((resolve) => server!.once('close', () => resolve()));
    await eventually(`prometheus ready`, 30_000, async () => ((await request(`${api}/-/ready`)).statusCode === 200 ? true : undefined)).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; stderr: ${stderr.join('').slice(-1000)}`);
    });
  }, 120_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await faulty?.close();
    if (!s) {
      if (dir) rmSync(dir, { recursive: true, force: true });
      return;
    }
    try {
      s.expectNoSecretLeaked();
    } finally {
      await s.close();
    }
  }, 60_000);

  /** Commands, autocomplete, a 404, a feed API that hangs, resets and fails, an interaction that arrives late. */
  async function commandsStory(): Promise<void> {
    const g = main;
    const key = await s.newKey(g);
    expect((await s.setKey(g, key)).embeds[0]!.title).toBe('API key saved');
    const created: number[] = [];
    for (const cuenta of ['@monitoring.one', '@monitoring.two']) created.push(StoryStack.createdId(await s.command(g, 'admin', 'feed', 'create', { cuenta, canal: g.channels.media, tipos: 'post' })));
    for (let i = 0; i < 3; i++) await s.command(g, 'member', 'feed', 'list');
    for (const id of created) await s.command(g, 'member', 'feed', 'posts', { id });
    for (let i = 0; i < 2; i++) await s.command(g, 'member', 'stats', '');
    // Two keystrokes: a cache miss, then a hit.
    for (let i = 0; i < 2; i++) await s.send({ type: 'autocomplete', commandName: 'feed', subcommand: 'delete', focused: 'id', options: { id: '' }, ...actor(g, 'admin') } as InteractionInput);
    await s.command(g, 'member', 'feed', 'posts', { id: 999_999 }); // 404
    // One call meets all three faults: a time-out, a cut connection, then a 503 (two retries; deferred).
    faulty!.inject(key, 'hang', 'reset', 503);
    await s.command(g, 'member', 'stats', '');
    expect(faulty!.pending(key)).toBe(0);
    // An interaction Discord created 5 s ago: acknowledged, but past the 3-second deadline.
    const sent = s.emulator.sendInteraction({ type: 'command', commandName: 'stats', ...actor(g, 'member') });
    await sent.waitForFinal({ timeoutMs: 15_000 });
    const id = snowflake(Date.now() - 5_000);
    const late = { ...sent.payload, id, token: Buffer.from(`interaction:${id}:${randomBytes(48).toString('base64url')}`).toString('base64url') } as APIInteraction;
    await s.send({ type: 'raw', payload: late });
    await counted('feedbot_interaction_missed_deadlines_total', {}, 1, 15_000);
    await s.command(g, 'admin', 'apikey', 'status');
  }

  /** Another tool spends the key at the sandbox until it answers 429. */
  async function spendAtSandbox(key: string): Promise<void> {
    const agent = new Agent({ connect: { ca: s.sandbox.caPem } });
    try {
      await eventually('the key spent at the sandbox', 10_000, async () => {
        const res = await request(`${s.sandbox.url}/stats`, { headers: { authorization: `Bearer ${key}` }, dispatcher: agent });
        await res.body.dump();
        return res.statusCode === 429 ? true : undefined;
      }, 0);
    } finally {
      await agent.close();
    }
  }

  /** A key of 5 requests a minute, spent by another tool: the bot meets a 429, then refuses locally; then /feedbot forget. */
  async function budgetStory(): Promise<void> {
    const g = budget;
    const key = await s.sandbox.admin.generateKey(g.id, [...SCOPES], { rateLimit: 5 });
    s.keys.add(key);
    expect((await s.setKey(g, key)).embeds[0]!.title).toBe('API key saved');
    await s.command(g, 'member', 'stats', '');
    // The bot still thinks it has budget, so its next /stats meets the API's 429, and the one after
    // is refused locally until the reset. The sandbox's window opens at a key's first request; on a
    // loaded machine it can close between the spending and those commands, which then get a fresh
    // window and a normal answer: spend that one too and ask again.
    const rounds: string[] = [];
    const seen = async () =>
      (await counted('feedbot_api_requests_total', { status: '429' }, 1, 5_000).then(() => true, () => false)) &&
      (await counted('feedbot_api_rate_gate_refusals_total', {}, 1, 5_000).then(() => true, () => false));
    for (let round = 1; round <= 3; round++) {
      await spendAtSandbox(key);
      const started = Date.now();
      const answers = [await s.command(g, 'member', 'stats', ''), await s.command(g, 'member', 'stats', '')];
      rounds.push(`round ${round} (${Date.now() - started} ms): ${answers.map((a) => JSON.stringify((a.embeds[0]?.title ?? a.content).slice(0, 60))).join(', ')}`);
      if (await seen()) break;
    }
    const e = await scrape();
    expect(sum(e, 'feedbot_api_requests_total', { status: '429' }), rounds.join('; ')).toBeGreaterThanOrEqual(1);
    expect(sum(e, 'feedbot_api_rate_gate_refusals_total'), rounds.join('; ')).toBeGreaterThanOrEqual(1);
    const asked = await s.command(g, 'admin', 'feedbot', 'forget');
    await s.pressFor(g, 'admin', asked, g.t('forget.button.delete'), titled(g.t('forget.done.title')));
  }

  /** Health sweeps of a server with an audit channel: a baseline, a weekly digest due now, a feed paused at the service. */
  async function sweepStory(): Promise<void> {
    const g = swept;
    const feed = await s.sandbox.admin.createFeed(g.id, { cuenta: 'monitoring_swept', canalId: g.channels.media, tipos: ['post'] });
    await s.sandbox.admin.addPost(g.id, feed.id);
    await s.setKey(g, await s.newKey(g));
    await s.command(g, 'admin', 'feedbot', 'audit-channel set', { canal: g.channels.audit });
    const now = new Date();
    await s.command(g, 'admin', 'feedbot', 'digest set', { dia: (now.getUTCDay() + 6) % 7, hora: now.getUTCHours() });
    await counted('feedbot_health_sweeps_total', { result: 'ok' });
    await counted('feedbot_digests_posted_total');
    await s.sandbox.admin.pauseFeed(g.id, feed.id);
    await counted('feedbot_health_changes_total', { kind: 'feed_inactive' });
  }

  it('a story makes the bot produce every series the dashboard and the rules read', async () => {
    await Promise.all([commandsStory(), budgetStory(), sweepStory()]);
    // A /readyz probe is a key store ping; the first heartbeat comes within the emulator's 41.25 s interval.
    expect((await request(`${metricsUrl}/readyz`)).statusCode).toBe(200);
    await eventually('a gateway heartbeat in /metrics', 60_000, async () => ((await scrape()).samples.some((x) => x.name === 'feedbot_gateway_heartbeat_seconds') ? true : undefined), 1_000);
    // Answers within the last minute keep feedbot_api_remaining_budget_lowest present.
    await s.command(main, 'member', 'feed', 'list');
    const e = await scrape();
    for (const name of ['feedbot_interaction_claims_total', 'feedbot_interaction_deferrals_total', 'feedbot_api_retries_total', 'feedbot_guilds_forgotten_total', 'feedbot_sweep_upstream_requests_total'])
      expect(sum(e, name), name).toBeGreaterThan(0);
    for (const status of ['timeout', 'connection', '503', '404']) expect(sum(e, 'feedbot_api_requests_total', { status }), `status ${status}`).toBeGreaterThan(0);
  }, 150_000);

  it('every dashboard target returns data from the query API', async () => {
    const pending = targets.map((t) => ({ ...t, promql: substitute(t.expr, target) }));
    for (const t of pending) expect(t.promql, `${t.panel}: no template variable left`).not.toMatch(/\$/);
    const excepted = (t: (typeof pending)[number]) => {
      const names = metricNames(t.promql);
      return names.length > 0 && names.every((n) => n in EXCEPTIONS);
    };
    const checked = pending.filter((t) => !excepted(t));
    let failing: string[] = [];
    await eventually('every dashboard target with data', 30_000, async () => {
      failing = [];
      for (const t of checked) {
        const r = await query(t.promql);
        if (r.status !== 'success') failing.push(`${t.panel} [${t.refId}]: ${r.status} ${r.error ?? ''}`);
        else if ((r.data?.result.length ?? 0) === 0) failing.push(`${t.panel} [${t.refId}]: no data for ${t.promql}`);
      }
      return failing.length === 0 ? true : undefined;
    }, 1_000).catch(() => undefined);
    expect(failing).toEqual([]);
    // The excepted targets still parse and run.
    for (const t of pending.filter(excepted)) expect((await query(t.promql)).status, t.panel).toBe('success');
  }, 60_000);

  it('every rule of alerts.yml is loaded and healthy, every recorded series has data, every metric a rule reads has data', async () => {
    const inFile = rulesInFile();
    expect(inFile.length).toBeGreaterThan(10);
    interface LoadedRule {
      name: string;
      type: string;
      query: string;
      health: string;
      lastError?: string;
    }
    const loaded = await eventually('every rule evaluated once', 30_000, async () => {
      const res = await request(`${api}/api/v1/rules`);
      const body = (await res.body.json()) as { status: string; data: { groups: { file: string; rules: LoadedRule[] }[] } };
      const rules = body.data.groups.flatMap((grp) => grp.rules);
      return rules.length >= inFile.length && rules.every((r) => r.health !== 'unknown') ? rules : undefined;
    });
    expect(loaded.map((r) => `${r.type} ${r.name}`).sort()).toEqual(inFile.map((r) => `${r.type} ${r.name}`).sort());
    expect(loaded.filter((r) => r.health !== 'ok' || r.lastError).map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`)).toEqual([]);

    const wanted = [
      ...loaded.filter((r) => r.type === 'recording').map((r) => ({ what: `recorded ${r.name}`, promql: r.name })),
      ...[...new Set(loaded.flatMap((r) => metricNames(r.query)))].filter((n) => !(n in EXCEPTIONS)).map((n) => ({ what: `metric ${n}`, promql: `count({__name__="${n}", job="feedbot"})` })),
    ];
    let failing: string[] = [];
    await eventually('every recorded series and every metric the rules read with data', 30_000, async () => {
      failing = [];
      for (const w of wanted) {
        const r = await query(w.promql);
        if (r.status !== 'success' || (r.data?.result.length ?? 0) === 0) failing.push(`${w.what}: ${r.status} ${r.error ?? 'no data'}`);
      }
      return failing.length === 0 ? true : undefined;
    }, 1_000).catch(() => undefined);
    expect(failing).toEqual([]);
  }, 60_000);
});
