/**
 * feedbot's entry point (`npm start`): configuration, logging, the optional ops listener
 * (METRICS_PORT), login, and a clean shutdown.
 */
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { createBot } from './app.js';
import { loadConfigOrExit, tokenRefusal } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger } from './logger.js';
import { observe, startOps, type Ops } from './ops/index.js';
import { answerManager } from './sharding/ipc.js';
import { formatShardIds } from './sharding/shard-ids.js';

loadEnvFile();

const config = loadConfigOrExit();

// Under `npm run start:sharded` discord.js's ShardingManager started this process for one shard
// (SHARDS) and answers for the host's ops; otherwise this process runs SHARD_IDS, or every shard.
const managedShard = process.env.SHARDING_MANAGER !== undefined && process.send !== undefined ? process.env.SHARDS : undefined;
const shardsOfProcess = managedShard ?? (config.SHARD_IDS ? formatShardIds(config.SHARD_IDS) : undefined);
const logger = createLogger({ name: 'feedbot', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }).child(shardsOfProcess === undefined ? {} : { shards: shardsOfProcess });
// FEED_API_CA_FILE: trusted for the feed API only, beside the public CAs; TLS checks stay on.
const dispatcher = config.FEED_API_CA_FILE ? new Agent({ connect: { ca: [...rootCertificates, config.FEED_API_CA_FILE.pem] } }) : undefined;
const bot = await createBot(config, { logger, ...(dispatcher ? { dispatcher } : {}) });

// Before login, so /healthz answers and /readyz says why not while the gateway connects.
let ops: Pick<Ops, 'markStopping' | 'close'> | undefined;
if (managedShard !== undefined) {
  // The manager serves the host's ops listener and asks this process over IPC.
  const observation = observe(bot);
  observation.metrics.registry.setDefaultLabels({ shard_process: managedShard });
  const stopAnswering = answerManager({ readiness: observation.readiness, metrics: () => observation.metrics.registry.getMetricsAsJSON() });
  ops = {
    markStopping: observation.markStopping,
    close: async () => {
      stopAnswering();
      observation.unsubscribe();
    },
  };
} else if (config.METRICS_PORT !== undefined) {
  try {
    ops = await startOps(bot, { host: config.METRICS_HOST, port: config.METRICS_PORT, logger: logger.child({ component: 'ops' }) });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    logger.fatal({ err: error }, 'could not start the ops listener');
    await bot.stop().catch(() => undefined);
    process.exit(1);
  }
}

// A failure in one interaction is handled by the router; anything that still escapes is logged
// and the process keeps serving the others.
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception'));

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    logger.info({ signal, inFlight: bot.router.inFlight }, 'shutting down');
    ops?.markStopping();
    // The ops listener closes last: /readyz keeps saying "shutting down" while interactions drain.
    const stopped = bot.stop().then(async () => ops?.close());
    stopped.then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  });
}

try {
  await bot.client.login(config.DISCORD_TOKEN);
} catch (error) {
  const refusal = tokenRefusal(error);
  if (refusal) console.error(refusal);
  logger.fatal({ err: error, ...(refusal ? { fix: refusal } : {}) }, 'could not log in to Discord');
  await bot.stop().catch(() => undefined);
  await ops?.close();
  process.exit(1);
}
