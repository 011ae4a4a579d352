/**
 * `npm run start:sharded`: one process per shard of this host, under discord.js's
 * ShardingManager (src/sharding/manager.ts). SHARD_COUNT (or Discord's recommendation) and
 * SHARD_IDS (default: every shard) say which; with METRICS_PORT this manager serves the host's
 * ops listener and asks its shard processes over IPC.
 */
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit, tokenRefusal } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger } from './logger.js';
import { startOpsListener } from './ops/index.js';
import type { OpsServer } from './ops/http-server.js';
import { fetchGatewayBot } from './sharding/gateway-bot.js';
import { HostOps } from './sharding/host-ops.js';
import { HostManager, type ShardPlan } from './sharding/manager.js';

loadEnvFile();

const config = loadConfigOrExit();

const logger = createLogger({ name: 'feedbot', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }).child({ component: 'shard-manager' });

let plan: ShardPlan;
try {
  const gateway = await fetchGatewayBot(config.DISCORD_TOKEN, config.DISCORD_API_URL);
  const count = config.SHARD_COUNT ?? gateway.recommendedShards;
  plan = { count, ids: config.SHARD_IDS ?? Array.from({ length: count }, (_, i) => i), maxConcurrency: gateway.maxConcurrency };
} catch (error) {
  const refusal = tokenRefusal(error);
  console.error(refusal ?? `Could not read GET /gateway/bot from Discord: ${error instanceof Error ? error.message : String(error)}`);
  logger.fatal({ err: error }, 'could not plan the shards');
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
});
const hostOps = new HostOps({ ids: plan.ids, shard: (id) => host.shard(id), stopping: () => host.isStopping });

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

let exiting = false;
async function shutdown(code: number): Promise<never> {
  exiting = true;
  await host.stop();
  await ops?.close();
  logger.info('stopped');
  logger.flush();
  process.exit(code);
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
