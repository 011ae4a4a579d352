/**
 * `npm run start:sharded`: one process per shard of this host, under discord.js's
 * ShardingManager (src/sharding/manager.ts). SHARD_COUNT (or Discord's recommendation) and
 * SHARD_IDS (default: every shard) say which; with METRICS_PORT this manager serves the host's
 * ops listener and asks its shard processes over IPC.
 *
 * Signals: SIGTERM / SIGINT stop every shard process (each drains) and then the manager; SIGUSR2
 * is a rolling restart: each shard process is replaced, wave by wave, by a new one started from
 * the bot's code as it is on disk now, and stopped only once its replacement is ready.
 *
 * Neither the start nor a roll spends identifies Discord's session start limit no longer has:
 * both read GET /gateway/bot first and refuse, saying how many are needed, left, and when it resets.
 */
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit, tokenRefusal } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger } from './logger.js';
import { startOpsListener } from './ops/index.js';
import type { OpsServer } from './ops/http-server.js';
import { fetchGatewayBot, sessionStartRefusal, type GatewayBot } from './sharding/gateway-bot.js';
import { awaitShardReady, HostOps } from './sharding/host-ops.js';
import { HostManager, STOP_TIMEOUT_MS, type ShardPlan } from './sharding/manager.js';
import { formatShardIds } from './shard-ids.js';

/** After a crash: how long the shard processes may drain before the manager kills them and exits. */
const CRASH_STOP_TIMEOUT_MS = STOP_TIMEOUT_MS + 5_000;
/** During a roll: how long a READY replacement may take to report itself ready before the roll stops. */
const CONFIRM_READY_TIMEOUT_MS = 30_000;

loadEnvFile();

const config = loadConfigOrExit();

const logger = createLogger({ name: 'feedbot', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }).child({ component: 'shard-manager' });

// SIGUSR2 asks for a rolling restart. Listened to from the start: Node's default for it would end
// the manager (and, from there, every shard process) while it still plans.
const rolls: { host?: HostManager } = {};
let exiting = false;
process.on('SIGUSR2', () => {
  if (exiting) logger.info({ signal: 'SIGUSR2' }, 'rolling restart ignored: the host is stopping');
  else if (!rolls.host) logger.info({ signal: 'SIGUSR2' }, 'rolling restart ignored: the shard processes are still starting');
  else {
    logger.info({ signal: 'SIGUSR2' }, 'rolling restart requested');
    // roll() never rejects: it logs how the roll ended.
    void rolls.host.roll();
  }
});

let plan: ShardPlan;
let gateway: GatewayBot;
try {
  gateway = await fetchGatewayBot(config.DISCORD_TOKEN, config.DISCORD_API_URL);
  const count = config.SHARD_COUNT ?? gateway.recommendedShards;
  plan = { count, ids: config.SHARD_IDS ?? Array.from({ length: count }, (_, i) => i), maxConcurrency: gateway.maxConcurrency };
} catch (error) {
  const refusal = tokenRefusal(error);
  console.error(refusal ?? `Could not read GET /gateway/bot from Discord: ${error instanceof Error ? error.message : String(error)}`);
  logger.fatal({ err: error }, 'could not plan the shards');
  process.exit(1);
}

// One identify per shard process: never more than Discord's session start limit has left (a new
// manager started beside an old one to reshard is refused here too).
const startRefusal = sessionStartRefusal(gateway, plan.ids.length, 'start');
if (startRefusal) {
  console.error(startRefusal);
  logger.fatal(
    { shards: formatShardIds(plan.ids), needed: plan.ids.length, remaining: gateway.sessionStartsRemaining, resetAfterMs: gateway.resetAfterMs },
    'not enough session starts left to start the shard processes',
  );
  process.exit(1);
}

// The bot's entry beside this file: index.js when compiled, index.ts from source (tsx).
const here = fileURLToPath(import.meta.url);
const file = join(dirname(here), `index${extname(basename(here))}`);

let ops: OpsServer | undefined;
const host: HostManager = new HostManager({
  file,
  token: config.DISCORD_TOKEN,
  plan,
  logger,
  execArgv: process.execArgv,
  onRespawn: (id) => hostOps.countRestart(id),
  rollPreflight: async (needed) => sessionStartRefusal(await fetchGatewayBot(config.DISCORD_TOKEN, config.DISCORD_API_URL), needed, 'roll'),
  confirmReady: (shard) => awaitShardReady(shard, { timeoutMs: CONFIRM_READY_TIMEOUT_MS }),
});
rolls.host = host;
const hostOps = new HostOps({ ids: plan.ids, shard: (id) => host.shard(id), stopping: () => host.isStopping });

async function shutdown(code: number): Promise<never> {
  exiting = true;
  await host.stop();
  await ops?.close();
  logger.info('stopped');
  logger.flush();
  process.exit(code);
}

// A manager that dies must take its shard processes with it: left alone they run on, re-parented
// to PID 1 and connected to Discord, and the manager started again runs the same shards twice.
// (A manager killed outright cannot do this: then each shard process notices its IPC channel
// closing and stops itself, see index.ts.) Node would end the process on either; this stops the
// shard processes first, bounded by the manager's stop time-out, then exits 1.
function crashed(error: unknown, what: string): void {
  logger.fatal({ err: error }, `${what}: stopping every shard process`);
  if (exiting) {
    // Crashed again while stopping: no more waiting.
    host.kill();
    logger.flush();
    process.exit(1);
  }
  setTimeout(() => {
    host.kill();
    process.exit(1);
  }, CRASH_STOP_TIMEOUT_MS).unref();
  void shutdown(1);
}
process.on('uncaughtException', (error) => crashed(error, 'uncaught exception'));
process.on('unhandledRejection', (reason) => crashed(reason, 'unhandled rejection'));

if (config.METRICS_PORT !== undefined) {
  try {
    ops = await startOpsListener(
      { host: config.METRICS_HOST, port: config.METRICS_PORT, logger: logger.child({ component: 'ops' }) },
      { scrape: () => hostOps.scrape(), readiness: () => hostOps.readiness() },
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    logger.info({ signal }, 'shutting down: asking every shard process to drain');
    void shutdown(0);
  });
}

try {
  await host.start();
} catch (error) {
  // A shard process that dies before READY (bad configuration, refused token) would be started
  // again and again: stop the host instead, with the reason the process printed on stderr.
  if (!exiting) {
    logger.fatal({ err: error }, 'a shard process did not become ready; stopping every shard process');
    await shutdown(1);
  }
}
