/**
 * The bot process, loaded by the entry point (index.ts): configuration, logging, the optional ops
 * listener (METRICS_PORT), login, and a clean shutdown.
 */
import { rootCertificates } from 'node:tls';
import { loadUndici } from './api/undici.js';
import { createBot, type BotApp } from './app.js';
import { loadConfigOrExit, tokenRefusal } from './config.js';
import { loadEnvFile } from './env-file.js';
import { KeyStoreError } from './keys/errors.js';
import { createLogger } from './logger.js';
import type { InteractionsServer } from './http/interactions-server.js';
import { ListenError } from './http/listen-error.js';
import type { BotMetrics, Ops } from './ops/index.js';
import { answerManager } from './sharding/ipc.js';
import { formatShardIds } from './shard-ids.js';
import { startTracing } from './tracing/tracer.js';
import { within } from './within.js';

loadEnvFile();

const config = loadConfigOrExit();

// Under `npm run start:sharded` discord.js's ShardingManager started this process for one shard
// (SHARDS) and answers for the host's ops; otherwise this process runs SHARD_IDS, or every shard.
const managedShard = process.env.SHARDING_MANAGER !== undefined && process.send !== undefined ? process.env.SHARDS : undefined;
const shardsOfProcess = managedShard ?? (config.SHARD_IDS ? formatShardIds(config.SHARD_IDS) : undefined);
const logger = createLogger({ name: 'feedbot', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }).child(shardsOfProcess === undefined ? {} : { shards: shardsOfProcess });
// OTEL_EXPORTER_OTLP_ENDPOINT: traces, before anything that makes spans; without it no
// OpenTelemetry module is loaded at all.
const tracing = await startTracing(config, logger);
// FEED_API_CA_FILE: trusted for the feed API only, beside the public CAs; TLS checks stay on.
const dispatcher = config.FEED_API_CA_FILE ? new (await loadUndici()).Agent({ connect: { ca: [...rootCertificates, config.FEED_API_CA_FILE.pem] } }) : undefined;
// Over the gateway, login starts as soon as the client exists and runs while the stores open;
// the client's events wait for bot.connected() below, once ops listens too.
const connect = config.INTERACTIONS_MODE === 'http' ? undefined : (client: BotApp['client']) => client.login(config.DISCORD_TOKEN);
const bot = await createBot(config, { logger, transport: config.INTERACTIONS_MODE, ...(dispatcher ? { dispatcher } : {}), ...(connect ? { connect } : {}) }).catch((error: unknown) => {
  // The key or settings store could not be opened (server down, wrong password, missing folder):
  // one line that says which variable, where and why, not an uncaught exception with its stack.
  if (!(error instanceof KeyStoreError)) throw error;
  console.error(error.message);
  logger.fatal({ problem: error.message }, 'could not open the key store');
  logger.flush();
  process.exit(1);
});
let endpoint: InteractionsServer | undefined;

// Before login, so /healthz answers and /readyz says why not while the gateway connects.
let ops: Pick<Ops, 'markStopping' | 'close'> | undefined;
let metrics: BotMetrics | undefined;
// ops/index.ts (prom-client) and http/start.ts are imported only by the configurations that use
// them: a gateway bot without METRICS_PORT loads neither, which shortens its start-up.
if (managedShard !== undefined) {
  // The manager serves the host's ops listener and asks this process over IPC.
  const { observe } = await import('./ops/index.js');
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
    const { startOps } = await import('./ops/index.js');
    const started = await startOps(bot, { host: config.METRICS_HOST, port: config.METRICS_PORT, logger: logger.child({ component: 'ops' }) });
    ops = started;
    metrics = started.metrics;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    logger.fatal({ err: error }, 'could not start the ops listener');
    await stopBounded(bot);
    process.exit(1);
  }
}

// A failure in one interaction is handled by the router; anything that still escapes is logged
// and the process keeps serving the others.
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception'));

let exiting = false;
/** Drains and exits: on SIGINT/SIGTERM, or when the shard manager of this process is gone. */
function shutdown(announce: () => void): void {
  if (exiting) return;
  exiting = true;
  announce();
  ops?.markStopping();
  // In HTTP mode the endpoint closes first, without refusing a request that reached it (a load
  // balancer does not retry a POST it has sent): it answers for the grace period, then closes
  // its listener and lets the requests in flight finish (bounded: a client that dribbles its
  // body is cut after the endpoint's drain); the bot keeps dispatching until then. Idle
  // keep-alive connections are left to the load balancer, which closes them after its own idle
  // time-out (docs/deploy/nginx/interactions.conf). Then the bot drains and stops; the ops
  // listener closes last: /readyz keeps saying "shutting down" until the process exits.
  const stopped = (async () => {
    // SHUTDOWN_GRACE_MS: a load balancer that watches /readyz (or an operator's script that reloads
    // nginx) takes this replica out meanwhile; then connections are refused, and nginx passes the
    // request to the next replica.
    await endpoint?.close({ graceMs: config.SHUTDOWN_GRACE_MS, idle: 'leave' });
    await bot.stop();
    // The last spans (the drain's) leave before the ops listener says the process is gone.
    await tracing?.shutdown();
    await ops?.close();
  })();
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
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => shutdown(() => logger.info({ signal, inFlight: bot.router.inFlight }, 'shutting down')));
}

// A shard process whose manager died (SIGKILL, OOM, a crash) would run on, re-parented to PID 1,
// still connected to Discord, and a restarted manager would start a second copy of its shards.
// discord.js's Shard child ignores the IPC channel closing; this process stops instead.
if (managedShard !== undefined) {
  // SIGUSR2 asks the manager for a rolling restart; sent to the whole process group by mistake
  // (systemctl kill without --kill-whom=main), Node's default would end every shard process.
  process.on('SIGUSR2', () => logger.info({ signal: 'SIGUSR2' }, 'SIGUSR2 is for the shard manager (a rolling restart): ignored by a shard process'));
  process.once('disconnect', () => shutdown(() => logger.warn({ inFlight: bot.router.inFlight }, 'the shard manager is gone: stopping')));
  // Meanwhile discord.js still reports gateway events to the manager (process.send without a
  // callback), and Node emits each failed send as an 'error' of the process: nobody to tell.
  process.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ERR_IPC_CHANNEL_CLOSED') logger.debug('message to the shard manager dropped: it is gone');
    else logger.error({ err: error }, 'process error');
  });
}

let PublicKeyMismatch: (new (...args: never[]) => Error) | undefined;
try {
  if (config.INTERACTIONS_MODE === 'http') {
    const { startHttpTransport, PublicKeyMismatchError } = await import('./http/start.js');
    PublicKeyMismatch = PublicKeyMismatchError;
    endpoint = await startHttpTransport({
      client: bot.client,
      token: config.DISCORD_TOKEN,
      publicKeyHex: config.DISCORD_PUBLIC_KEY!,
      host: config.HOST,
      port: config.PORT,
      responses: bot.initialResponses!,
      dispatch: (raw) => bot.dispatch(raw),
      seen: bot.seen,
      logger: logger.child({ component: 'interactions-endpoint' }),
    });
    if (metrics) endpoint.onRequest(metrics.onHttpRequest);
    logger.info({ mode: 'http' }, 'ready');
  } else {
    await bot.connected();
  }
} catch (error) {
  const refusal = tokenRefusal(error);
  const reason = refusal ?? ((PublicKeyMismatch && error instanceof PublicKeyMismatch) || error instanceof ListenError ? error.message : undefined);
  if (reason) console.error(reason);
  logger.fatal({ err: error, ...(reason ? { fix: reason } : {}) }, config.INTERACTIONS_MODE === 'http' ? 'could not open the interactions endpoint' : 'could not log in to Discord');
  await stopBounded(bot);
  await ops?.close();
  process.exit(1);
}

/**
 * A start that failed stops what it opened, but never waits on it for long: a login still under
 * way (the gateway, an identify turn) must not keep a process that is exiting 1 alive.
 */
async function stopBounded(app: { stop(): Promise<unknown> }): Promise<void> {
  await within(app.stop().catch(() => undefined), 5_000);
}
