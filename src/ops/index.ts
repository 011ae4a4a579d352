/**
 * Operations endpoint of a running bot (METRICS_PORT): metrics subscribed to the bot's hooks,
 * readiness from its gateway and key store, both served by the ops HTTP listener.
 */
import { isIP } from 'node:net';
import type { FeedApiClient } from '../api/client.js';
import type { InteractionRouter } from '../bot/router.js';
import type { KeyStore } from '../keys/store.js';
import type { Logger } from '../logger.js';
import type { GatewaySource } from './gateway.js';
import { startOpsServer } from './http-server.js';
import { BotMetrics } from './metrics.js';
import { checkReadiness } from './readiness.js';

export { BotMetrics } from './metrics.js';

/** The parts of a bot (BotApp) that report. */
export interface ObservedBot {
  router: Pick<InteractionRouter, 'onInteraction' | 'inFlight'>;
  api: Pick<FeedApiClient, 'onResponse' | 'onCacheLookup'>;
  keys: Pick<KeyStore, 'onOperation' | 'ping'>;
  client: { ws: GatewaySource };
}

/** Subscribes the metrics to every hook of the bot; returns the unsubscribe. */
export function instrument(bot: ObservedBot, metrics: BotMetrics): () => void {
  const unsubscribe = [
    bot.router.onInteraction(metrics.onInteraction),
    bot.api.onResponse(metrics.onResponse),
    bot.api.onCacheLookup(metrics.onCacheLookup),
    bot.keys.onOperation(metrics.onKeyStoreOperation),
  ];
  metrics.watch({ gateway: bot.client.ws, inFlight: () => bot.router.inFlight });
  return () => {
    for (const u of unsubscribe) u();
  };
}

export interface OpsOptions {
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

export async function startOps(bot: ObservedBot, opts: OpsOptions): Promise<Ops> {
  const metrics = new BotMetrics();
  const unsubscribe = instrument(bot, metrics);
  let stopping = false;
  const server = await startOpsServer({
    host: opts.host,
    port: opts.port,
    logger: opts.logger,
    scrape: () => metrics.scrape(),
    readiness: () =>
      checkReadiness(
        { gateway: bot.client.ws, pingKeyStore: () => bot.keys.ping(), stopping: () => stopping },
        opts.keyStoreTimeoutMs === undefined ? {} : { keyStoreTimeoutMs: opts.keyStoreTimeoutMs },
      ),
  }).catch((error: unknown) => {
    unsubscribe();
    throw error;
  });
  const log = { url: server.url, routes: ['/healthz', '/readyz', '/metrics'] };
  if (isLoopback(opts.host)) opts.logger.info(log, 'ops listener started');
  else opts.logger.warn(log, 'ops listener started on a non-loopback address: keep it off the public network');
  return {
    url: server.url,
    metrics,
    markStopping: () => void (stopping = true),
    async close() {
      unsubscribe();
      await server.close();
    },
  };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
