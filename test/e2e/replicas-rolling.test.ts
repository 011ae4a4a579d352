/**
 * HTTP replicas behind nginx: a rolling restart under load with 0 failed requests (`/readyz`
 * turns 503 before a replica stops accepting; nginx retries what was never sent).
 *
 * Two real bot processes in INTERACTIONS_MODE=http behind a real nginx whose configuration is
 * docs/deploy/nginx/interactions.conf as shipped (packages/playground/src/nginx.ts), sharing one
 * PostgreSQL (keys) and one Redis (replay guard, rate gate), as replicas.test.ts runs them. The
 * emulator POSTs about 20 signed /stats interactions a second to nginx, as Discord would, for
 * the whole roll. Each replica in turn is replaced as docs/OPERATIONS.md tells operators
 * (Stack.rollReplica): its replacement starts on a new port, /readyz 200, nginx reloaded with
 * it; then SIGTERM to the old process while nginx still lists it; nginx reloaded without it
 * once it has exited.
 *
 * Every interaction sent must be answered exactly once, its one delivery a 200 taken by the
 * emulator (no 502/503, no refused or unreachable delivery, none expired), and no replica may
 * log an error. Skipped locally without nginx, PostgreSQL or Redis; a failure under CI
 * (missingNginx/missingServer).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, Stack, freePort, missingNginx, missingServer, startPostgres, startRedis, type BotGroup, type BotProcess, type LocalServer, type ReplicaRoll } from '@feedbot/playground';
import { generateGuilds, type InteractionHandle, type InteractionInput, type InteractionSnapshot } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';

const REPLICAS = 2;
/** Interactions a second, for the whole roll. */
const RATE = 20;
/** A server without a key: its /stats is answered from the key store alone, never the feed API. */
const KEYLESS = generateGuilds(1, { namePrefix: 'Keyless' })[0]!;
const input: InteractionInput = { type: 'command', commandName: 'stats', guildId: KEYLESS.id, userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };
const missing = missingNginx() ?? missingServer('postgres') ?? missingServer('redis');
if (missing) console.warn(missing);

let dir: string;
let stack: Stack;
const servers: LocalServer[] = [];
/** Each replica's METRICS_PORT (/readyz), by index; a replacement gets its own. */
const metricsPorts: number[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const group = () => stack.bot as BotGroup;
const messagesOf = (s: InteractionSnapshot): APIMessage[] => [...(s.original && !s.originalDeleted ? [s.original] : []), ...s.followUps];
const answeredBy = (bot: BotProcess) => bot.lines.filter((l) => l.msg === 'interaction');

/** The status of GET /readyz on `port`, on a new connection; 0 when nothing answers. */
function readyz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** Whether a TCP connection to `port` is refused (nothing listens). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

interface StopWatch {
  /** First /readyz 503 and first refused connection on the interactions port (epoch ms). */
  notReadyAt?: number;
  refusedAt?: number;
}

/** Polls a stopping replica's /readyz and its interactions port every 20 ms until connections are refused. */
function watchStop(interactionsPort: number, metricsPort: number, until: number): { seen: StopWatch; done: Promise<void> } {
  const seen: StopWatch = {};
  const done = (async () => {
    while (seen.refusedAt === undefined && Date.now() < until) {
      const [status, isRefused] = await Promise.all([readyz(metricsPort), refused(interactionsPort)]);
      if (status === 503) seen.notReadyAt ??= Date.now();
      if (isRefused) seen.refusedAt = Date.now();
      await sleep(20);
    }
  })();
  return { seen, done };
}

/** Connections to `port` that nginx found refused, from its error log. */
const refusedBy = (log: string, port: number) => log.split('\n').filter((l) => l.includes('(111: Connection refused) while connecting to upstream') && l.includes(`upstream: "http://127.0.0.1:${port}/`)).length;

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe.skipIf(missing)(`a rolling restart of ${REPLICAS} HTTP replicas behind nginx under load`, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-rolling-'));
    servers.push(await startPostgres(), await startRedis());
    const shared = { DATABASE_URL: await servers[0]!.newDatabase(), REDIS_URL: await servers[1]!.newDatabase() };
    stack = await Stack.start({ dataDir: dir, logger: silentLogger(), extraGuilds: [KEYLESS], transport: 'http', replicas: REPLICAS, botEnv: shared });
    for (let i = 0; i < REPLICAS; i++) metricsPorts.push(await freePort());
    stack.replicaEnv = (i) => ({ METRICS_PORT: String(metricsPorts[i]) });
    await stack.deployCommands({ global: true });
    await stack.startBot();
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all(servers.map((server) => server.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('every interaction sent during the roll is answered exactly once, and no replica logs an error', async () => {
    const processes: BotProcess[] = [...group().members];
    const sent: InteractionHandle[] = [];
    let loading = true;
    const load = (async () => {
      let next = Date.now();
      while (loading) {
        sent.push(stack.emulator.sendInteraction(input));
        next += 1000 / RATE;
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
    const startedAt = Date.now();

    const rolls: Array<{ roll: ReplicaRoll; seen: StopWatch; servedWhileStopping: number; servedWhileDraining: number }> = [];
    try {
      // Steady state first: both replicas answer.
      await until(() => group().members.every((m) => answeredBy(m).length > 0), 10_000, 'both replicas answering');
      for (let i = 0; i < REPLICAS; i++) {
        const oldPort = stack.ports[i]!;
        const oldMetrics = metricsPorts[i]!;
        const nextMetrics = await freePort();
        let watch: ReturnType<typeof watchStop> | undefined;
        const roll = await stack.rollReplica(i, {
          env: { METRICS_PORT: String(nextMetrics) },
          ready: () => until(async () => (await readyz(nextMetrics)) === 200, 10_000, 'the replacement /readyz 200'),
          // nginx sends to the replacement; then watch the old one from just before its SIGTERM.
          beforeStop: async (next) => {
            await until(() => answeredBy(next).length > 0, 10_000, 'the replacement answering through nginx');
            watch = watchStop(oldPort, oldMetrics, Date.now() + 20_000);
          },
          // Until nginx has tried the closed port (an operator's reload may come later still):
          // the connection refused, the request goes to another replica, nothing is lost.
          afterStop: () => until(async () => refusedBy(await stack.loadBalancer!.errorLog(), oldPort) > 0, 5_000, 'nginx trying the closed port'),
        });
        metricsPorts[i] = nextMetrics;
        processes.push(roll.next);
        await watch!.done;
        const lineTime = (msg: string) => Number(roll.old.lines.find((l) => l.msg === msg)?.time);
        const stoppingAt = lineTime('shutting down');
        const closedAt = lineTime('interactions endpoint: listener closed, new connections are refused; draining');
        rolls.push({
          roll,
          seen: watch!.seen,
          servedWhileStopping: answeredBy(roll.old).filter((l) => Number(l.time) > stoppingAt).length,
          servedWhileDraining: answeredBy(roll.old).filter((l) => Number(l.time) > closedAt).length,
        });
      }
      // And after the roll: the replacements answer alone.
      await sleep(1_000);
    } finally {
      loading = false;
      await load;
    }
    const tookMs = Date.now() - startedAt;

    const snaps = await Promise.all(sent.map((h) => h.waitForFinal({ timeoutMs: 10_000, settleMs: 20 }).catch(() => h.snapshot())));
    const ids = new Set(snaps.map((s) => s.id));
    const deliveries = stack.emulator.deliveries.filter((d) => ids.has(d.interactionId ?? ''));
    const failed = deliveries.filter((d) => d.outcome !== 'accepted' || d.status !== 200);
    const unanswered = snaps.filter((s) => s.state !== 'acknowledged' || s.callbacks !== 1 || s.errors.length > 0 || messagesOf(s).length !== 1);
    const nginxLog = await stack.loadBalancer!.errorLog();
    console.info(
      `[rolling] ${sent.length} interactions in ${tookMs} ms (${((sent.length * 1000) / tookMs).toFixed(1)}/s), ${snaps.length - unanswered.length} answered once, ${unanswered.length} not, ${failed.length} failed deliveries; ` +
        rolls
          .map(
            ({ roll, seen, servedWhileStopping, servedWhileDraining }, i) =>
              `replica ${i}: /readyz 503 ${seen.notReadyAt! - roll.signalledAt} ms after SIGTERM, refused at +${seen.refusedAt! - roll.signalledAt} ms, exited at +${roll.exitedAt - roll.signalledAt} ms (code ${roll.exit.code}), ` +
              `${servedWhileStopping} answered after SIGTERM (${servedWhileDraining} of them logged after its listener closed), nginx passed ${refusedBy(nginxLog, roll.oldPort)} refused connection(s) to the next replica`,
          )
          .join('; '),
    );

    expect(sent.length).toBeGreaterThanOrEqual(RATE * 10);
    // Exactly one answer each, and the one delivery of each a 200 the emulator took.
    expect(unanswered.map((s) => `${s.id} ${s.state} callbacks=${s.callbacks} ${JSON.stringify(s.errors)}`)).toEqual([]);
    for (const s of snaps) expect(JSON.stringify({ content: messagesOf(s)[0]?.content, embeds: messagesOf(s)[0]?.embeds })).toMatch(/no feed API key yet/);
    expect(failed.map((d) => `${d.interactionId} ${d.outcome} ${d.status} ${d.detail ?? ''}`)).toEqual([]);
    expect(deliveries).toHaveLength(sent.length);
    expect(stack.emulator.violations.filter((v) => ids.has(v.interactionId ?? ''))).toEqual([]);

    for (const { roll, seen, servedWhileStopping } of rolls) {
      expect(roll.exit).toMatchObject({ code: 0 });
      // /readyz said 503 at once, well before the listener closed; the replica answered what
      // nginx still sent it meanwhile, then refused connections.
      expect(seen.notReadyAt, '/readyz 503 after SIGTERM').toBeDefined();
      expect(seen.refusedAt, 'connections refused after the grace period').toBeDefined();
      expect(seen.notReadyAt! - roll.signalledAt).toBeLessThan(1_000);
      expect(seen.refusedAt! - seen.notReadyAt!).toBeGreaterThan(3_000);
      expect(servedWhileStopping).toBeGreaterThan(0);
      expect(refusedBy(nginxLog, roll.oldPort), 'nginx tried the closed port').toBeGreaterThan(0);
    }
    // nginx never had a request cut on a replica's connection, nor a replica to give it to.
    expect(nginxLog).not.toMatch(/prematurely closed|reset by peer|no live upstreams|timed out|broken pipe/i);
    // No replica, old or new, logged an error (fatal included).
    expect(processes.flatMap((p) => p.lines.filter((l) => Number(l.level) >= 50))).toEqual([]);
    expect(group().members.map((m) => m.running)).toEqual(Array(REPLICAS).fill(true));
  }, 90_000);
});
