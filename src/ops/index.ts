/**
 * Operations endpoint of a running bot (METRICS_PORT): metrics subscribed to the bot's hooks,
 * readiness from its gateway and key store, both served by the ops HTTP listener.
 */
import { isIP } from 'node:net';
import type { FeedApiClient } from '../api/client.js';
import type { InteractionRouter } from '../interactions/router.js';
import type { KeyStore } from '../keys/store.js';
import type { Logger } from '../logger.js';
import type { GuildDataRetention } from '../guild-data/retention.js';
import type { GatewaySource } from './gateway.js';
import { startOpsServer, type OpsServer, type OpsServerOptions } from './http-server.js';
import { BotMetrics } from './metrics.js';
import { checkReadiness, type Readiness } from './readiness.js';
import type { Observers } from '../observers.js';
import type { SweepReport } from '../health/sweep/events.js';

export { BotMetrics } from './metrics.js';

/** The parts of a bot (BotApp) that report. */
export interface ObservedBot {
  router: Pick<InteractionRouter, 'onInteraction' | 'inFlight'> & Partial<Pick<InteractionRouter, 'onClaim'>>;
  api: Pick<FeedApiClient, 'onResponse' | 'onCacheLookup'>;
  keys: Pick<KeyStore, 'onOperation' | 'ping'>;
  client: { ws: GatewaySource };
  /** HTTP-interactions mode: no gateway to be ready. */
  gatewayless?: boolean;
  /** Servers forgotten (feedbot_guilds_forgotten_total). */
  guildData?: Pick<GuildDataRetention, 'onForgotten'>;
  /** Health sweeps and digests (feedbot_health_*, feedbot_digests_posted_total). */
  sweepReports?: Pick<Observers<SweepReport>, 'add'>;
}

/** Subscribes the metrics to every hook of the bot; returns the unsubscribe. */
export function instrument(bot: ObservedBot, metrics: BotMetrics): () => void {
  const unsubscribe = [
    bot.router.onInteraction(metrics.onInteraction),
    ...(bot.router.onClaim ? [bot.router.onClaim(metrics.onClaim)] : []),
    bot.api.onResponse(metrics.onResponse),
    bot.api.onCacheLookup(metrics.onCacheLookup),
    bot.keys.onOperation(metrics.onKeyStoreOperation),
    ...(bot.guildData ? [bot.guildData.onForgotten(metrics.onGuildForgotten)] : []),
    ...(bot.sweepReports ? [bot.sweepReports.add(metrics.onSweepReport)] : []),
  ];
  metrics.watch({ gateway: bot.client.ws, inFlight: () => bot.router.inFlight });
  return () => {
    for (const u of unsubscribe) u();
  };
}

interface OpsOptions {
  host: string;
  port: number;
  logger: Logger;
  keyStoreTimeoutMs?: number;
}

export interface Ops {
  readonly url: string;
  readonly metrics: BotMetrics;
  /** From now on /readyz answers 503 (shutdown began). */
  markStopping(): void;
  close(): Promise<void>;
}

/** What a running bot reports: its metrics and, on demand, its readiness. */
interface Observation {
  readonly metrics: BotMetrics;
  readiness(): Promise<Readiness>;
  /** From now on readiness says "shutting down". */
  markStopping(): void;
  unsubscribe(): void;
}

export function observe(bot: ObservedBot, opts: { keyStoreTimeoutMs?: number } = {}): Observation {
  const metrics = new BotMetrics();
  const unsubscribe = instrument(bot, metrics);
  let stopping = false;
  const readiness = () =>
    checkReadiness(
      { gateway: bot.gatewayless ? undefined : bot.client.ws, pingKeyStore: () => bot.keys.ping(), stopping: () => stopping },
      opts.keyStoreTimeoutMs === undefined ? {} : { keyStoreTimeoutMs: opts.keyStoreTimeoutMs },
    );
  // feedbot_ready: /readyz as a series, so an alert sees what a load balancer sees (HTTP mode too).
  metrics.watch({ readiness });
  return {
    metrics,
    readiness,
    markStopping: () => void (stopping = true),
    unsubscribe,
  };
}

export async function startOps(bot: ObservedBot, opts: OpsOptions): Promise<Ops> {
  const observation = observe(bot, opts.keyStoreTimeoutMs === undefined ? {} : { keyStoreTimeoutMs: opts.keyStoreTimeoutMs });
  const server = await startOpsListener(opts, { scrape: () => observation.metrics.scrape(), readiness: observation.readiness }).catch((error: unknown) => {
    observation.unsubscribe();
    throw error;
  });
  return {
    url: server.url,
    metrics: observation.metrics,
    markStopping: observation.markStopping,
    async close() {
      observation.unsubscribe();
      await server.close();
    },
  };
}

/** The ops listener on METRICS_HOST:METRICS_PORT, with a warning when it is not on loopback. */
export async function startOpsListener(opts: Omit<OpsOptions, 'keyStoreTimeoutMs'>, routes: Pick<OpsServerOptions, 'scrape' | 'readiness'>): Promise<OpsServer> {
  const server = await startOpsServer({ host: opts.host, port: opts.port, logger: opts.logger, ...routes });
  const log = { url: server.url, routes: ['/healthz', '/readyz', '/metrics'] };
  if (isLoopback(opts.host)) opts.logger.info(log, 'ops listener started');
  else opts.logger.warn(log, 'ops listener started on a non-loopback address: keep it off the public network');
  return server;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
