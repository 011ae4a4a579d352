/**
 * Wires the bot together: key store, API client, discord.js client and router. The entry point
 * (src/index.ts) adds configuration, signals and login; tests and benchmarks call startBot
 * directly.
 */
import { Events, type Client, type ClientOptions } from 'discord.js';
import type { Dispatcher } from 'undici';
import { FeedApiClient } from './api/client.js';
import type { SharedStateBackend } from './replicas/shared-state.js';
import { ChannelDirectory } from './bot/channel-directory.js';
import { createDiscordClient } from './bot/discord-client.js';
import { holdEvents } from './bot/held-events.js';
import type { BotServices } from './interactions/context.js';
import { createRouter, type InteractionRouter } from './interactions/router.js';
import { createCommands } from './commands.js';
import type { Config } from './config.js';
import { KeyStore } from './keys/store.js';
import { GuildSettingsStore } from './settings/store.js';
import { createAuditTrail } from './audit/trail.js';
import { listenTo } from './bot/gateway-listeners.js';
import { gatewayListeners } from './listeners.js';
import type { Logger } from './logger.js';
import { formatShardIds } from './shard-ids.js';
import { emitInteraction } from './http/dispatch.js';
import { InitialResponses } from './http/initial-response.js';
import { MemorySeenInteractions, type SeenInteractions } from './http/replay.js';
import { openStorePending } from './replicas/pending-open.js';
import type { Observers } from './observers.js';
import { startHealthSweeps } from './health/sweep/index.js';
import { SweepStore } from './health/sweep/store.js';
import { countingWeeklyChanges } from './health/sweep/weekly-counts.js';
import { sweepReports, type SweepReport } from './health/sweep/events.js';
import { DepartureStore } from './guild-data/departures.js';
import { gatewayPresence, restPresence } from './guild-data/presence.js';
import { GuildReconciler } from './guild-data/reconcile.js';
import { GuildDataRetention } from './guild-data/retention.js';
import { openLease, type SlotLease } from './leases/lease.js';
import { leaseClaims } from './interactions/claims.js';
import { within } from './within.js';

export interface BotApp {
  client: Client;
  router: InteractionRouter;
  keys: KeyStore;
  api: FeedApiClient;
  /** HTTP transport: there is no gateway session to wait for. */
  gatewayless: boolean;
  /** `http` transport: first responses waiting for the HTTP answer. */
  initialResponses?: InitialResponses;
  /** `http` transport: interaction ids already received (shared by the replicas with REDIS_URL). */
  seen: SeenInteractions;
  /** Forgetting servers the bot left (GUILD_DATA_RETENTION_HOURS) and `/feedbot forget`. */
  guildData: GuildDataRetention;
  /** Finds the servers the bot left unseen (HTTP mode; the gateway process that runs shard 0); undefined elsewhere. */
  guildReconciler?: GuildReconciler;
  /** What the health sweeps and digests did (metrics and logs subscribe). */
  sweepReports: Observers<SweepReport>;
  /**
   * Gateway: lets the client's events reach the bot's listeners and resolves when `connect` (see
   * StartBotOptions) has logged in; rejects as it did. Call it once whatever else listens to the
   * client (ops) is in place. Without `connect`: resolves at once.
   */
  connected(): Promise<void>;
  /** Hands a raw interaction (HTTP transport) to discord.js and the router; false once stopping. */
  dispatch(raw: Record<string, unknown>): boolean;
  /** Stops taking interactions, lets the running ones finish, closes Discord and the store. */
  stop(): Promise<void>;
}

interface StartBotOptions {
  logger: Logger;
  /** undici dispatcher for the feed API (tests pass a MockAgent). */
  dispatcher?: Dispatcher;
  /** discord.js REST overrides (tests capture calls with `makeRequest`). */
  rest?: ClientOptions['rest'];
  deferAfterMs?: number;
  /** How long stop() waits for running interactions. */
  drainTimeoutMs?: number;
  /** `http`: interactions come from POST /interactions and their first response goes back in its answer. */
  transport?: 'gateway' | 'http';
  /** Where the health sweeps report (metrics subscribe to it); a new one when absent. */
  sweepReports?: Observers<SweepReport>;
  /** The lease shared with other processes, instead of the store's (the caller closes it). */
  lease?: SlotLease;
  /** Where replicas share the rate gate and feeds cache, instead of REDIS_URL's (the caller closes it). */
  sharedState?: SharedStateBackend;
  /**
   * Gateway: logs the client in (`client.login(token)`). Started as soon as the client exists, so
   * Discord's handshake runs while the stores open (start-up); what the client emits meanwhile
   * is held until connected() (nothing reaches the router before the stores are open).
   */
  connect?: (client: Client) => Promise<unknown>;
}

export type BotConfig = Pick<
  Config,
  'FEED_API_URL' | 'KEY_ENCRYPTION_SECRET' | 'KEY_ENCRYPTION_SECRET_PREVIOUS' | 'DATABASE_URL' | 'DISCORD_API_URL' | 'FEED_API_TIMEOUT_MS'
> &
  Partial<Pick<Config, 'SHARD_COUNT' | 'SHARD_IDS' | 'REDIS_URL' | 'GUILD_DATA_RETENTION_HOURS' | 'GUILD_RECONCILE_SECONDS' | 'HEALTH_SWEEP_SECONDS'>>;

/** How often due departures are looked for: the retention is counted in hours. */
const GUILD_DATA_SWEEP_MS = 3_600_000;

export async function createBot(config: BotConfig, opts: StartBotOptions): Promise<BotApp> {
  const { logger } = opts;
  // Opened first; a Redis that is down does not stop start-up (the replica carries on alone and
  // the link keeps connecting in the background).
  // Imported only when REDIS_URL is set: @redis/client stays unloaded otherwise (start-up).
  const ownSharedState =
    !opts.sharedState && config.REDIS_URL
      ? await (await import('./replicas/redis-state.js')).RedisSharedState.open(config.REDIS_URL, logger.child({ component: 'shared-state' }))
      : undefined;
  const sharedState = opts.sharedState ?? ownSharedState;
  if (sharedState) logger.info({ where: sharedState.where }, 'rate gate, feeds cache and confirmations shared with the other replicas');
  const initialResponses = opts.transport === 'http' ? new InitialResponses() : undefined;
  // The login starts before the lease below is open: its identifies wait for it (bounded).
  let leaseOpened: (lease: SlotLease | undefined) => void = () => undefined;
  const identifyLease = new Promise<SlotLease | undefined>((resolve) => (leaseOpened = resolve));
  const client = createDiscordClient({
    apiUrl: config.DISCORD_API_URL,
    rest: initialResponses ? { ...opts.rest, makeRequest: initialResponses.wrap(opts.rest?.makeRequest) } : opts.rest,
    sharding: { count: config.SHARD_COUNT, ids: config.SHARD_IDS },
    identifyLease: () => identifyLease,
  });
  // Login runs beside the stores' opening; its events wait for the listeners below.
  const held = opts.connect ? holdEvents(client) : undefined;
  const connecting = opts.connect?.(client).then(() => undefined);
  // Awaited by connected(); until then a failed login must not count as unhandled.
  connecting?.catch(() => undefined);
  // A store that cannot be opened ends the start. discord.js's destroy() does not stop a login
  // under way (its shards connect after it, and a second destroy() does nothing): the client is
  // destroyed once the login settles, without holding up the error.
  const abandon = async () => {
    leaseOpened(undefined);
    void (connecting ?? Promise.resolve()).catch(() => undefined).then(async () => client.destroy());
    await ownSharedState?.close();
  };
  const keys = await KeyStore.open({
    databaseUrl: config.DATABASE_URL,
    secret: config.KEY_ENCRYPTION_SECRET,
    previousSecrets: config.KEY_ENCRYPTION_SECRET_PREVIOUS ? [config.KEY_ENCRYPTION_SECRET_PREVIOUS] : [],
    // The store binds its own component ('key-store'); a second one here would duplicate the field.
    logger,
  }).catch(async (error: unknown) => {
    await abandon();
    throw error;
  });
  const settings = await GuildSettingsStore.open({ databaseUrl: config.DATABASE_URL, logger }).catch(async (error: unknown) => {
    await keys.close();
    await abandon();
    throw error;
  });
  const departures = await DepartureStore.open({ databaseUrl: config.DATABASE_URL, logger }).catch(async (error: unknown) => {
    await settings.close();
    await keys.close();
    await abandon();
    throw error;
  });
  // Sweep slots, digests, interaction claims and gateway events: once, however many processes
  // hold a shard (a deploy overlaps old and new) or serve the interactions (HTTP replicas).
  const ownLease = opts.lease
    ? undefined
    : await openLease({ databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL }).catch(async (error: unknown) => {
        await departures.close();
        await settings.close();
        await keys.close();
        await abandon();
        throw error;
      });
  const lease = opts.lease ?? ownLease!;
  leaseOpened(lease);
  const api = new FeedApiClient({
    baseUrl: config.FEED_API_URL,
    timeoutMs: config.FEED_API_TIMEOUT_MS,
    logger: logger.child({ component: 'api' }),
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    ...(sharedState ? { sharedState } : {}),
  });
  // Confirmations: the replicas' Redis (REDIS_URL), else the key store's database, which a process
  // beside this one on the same shard (a deploy) shares.
  const ownPending = sharedState ? undefined : await openStorePending(config.DATABASE_URL, logger).catch(async (error: unknown) => {
    await ownLease?.close();
    await departures.close();
    await settings.close();
    await keys.close();
    await abandon();
    throw error;
  });
  const pending = sharedState?.pendingConfirmations() ?? ownPending!.store;
  const guildLogger = logger.child({ component: 'guild-data' });
  // Health sweeps and the weekly digest keep a record per server beside the settings; it is
  // forgotten with the rest when the bot leaves the server.
  const sweepStore = config.HEALTH_SWEEP_SECONDS ? await SweepStore.open({ databaseUrl: config.DATABASE_URL, logger }) : undefined;
  const guildData = new GuildDataRetention({
    services: { keys, settings, pending, departures, ...(sweepStore ? { sweeps: sweepStore } : {}) },
    retentionHours: config.GUILD_DATA_RETENTION_HOURS ?? 168,
    presence: initialResponses ? restPresence(client) : gatewayPresence(client),
    logger: guildLogger,
  });
  // The trail counts this week's created/deleted feeds for the digest (src/health/sweep/).
  const reports = opts.sweepReports ?? sweepReports();
  const trail = createAuditTrail({ client, settings, logger: logger.child({ component: 'audit' }) });
  const countingTrail = sweepStore ? countingWeeklyChanges(trail, sweepStore, logger.child({ component: 'sweeps' })) : undefined;
  const services: BotServices = {
    api,
    keys,
    settings,
    audit: countingTrail ?? trail,
    channels: new ChannelDirectory(client),
    pending,
    guildData,
    logger: logger.child({ component: 'interactions' }),
    ...(opts.deferAfterMs !== undefined ? { deferAfterMs: opts.deferAfterMs } : {}),
  };
  const commands = createCommands();
  // Over the gateway every process holding a shard receives its interactions; HTTP requests reach
  // one replica each, and the replay guard refuses a second delivery.
  const claims = initialResponses ? undefined : leaseClaims(lease, { logger: logger.child({ component: 'claims' }) });
  const router = createRouter(commands, services, claims ? { claims } : {});
  const sweeps = sweepStore
    ? await startHealthSweeps({
        intervalMs: config.HEALTH_SWEEP_SECONDS! * 1000,
        transport: opts.transport ?? 'gateway',
        databaseUrl: config.DATABASE_URL,
        redisUrl: config.REDIS_URL,
        client,
        ...services,
        store: sweepStore,
        lease,
        reports,
        logger: logger.child({ component: 'sweeps' }),
      })
    : undefined;
  if (sweeps) services.sweeps = sweeps;

  let accepting = true;
  client.on(Events.InteractionCreate, (interaction) => {
    if (accepting) void router.handle(interaction);
  });
  client.once(Events.ClientReady, (ready) => {
    logger.info({ user: ready.user.tag, guilds: ready.guilds.cache.size, shardIds: formatShardIds([...ready.ws.shards.keys()]), shardCount: ready.options.shardCount }, 'ready');
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  client.on(Events.Warn, (message) => logger.warn({ message }, 'discord client warning'));
  // Deleted channels and roles, servers left and joined (src/listeners.ts): gateway events only.
  const listening = initialResponses ? undefined : listenTo(client, gatewayListeners, { ...services, lease, guildData });
  guildData.start(GUILD_DATA_SWEEP_MS);
  // Servers left unseen: HTTP mode has no gateway; over the gateway, what happened while the bot was
  // down (one process lists: the one that runs shard 0, or the only one).
  const runsShardZero = config.SHARD_IDS === undefined || config.SHARD_IDS.includes(0);
  const guildReconciler =
    initialResponses || runsShardZero ? new GuildReconciler({ rest: client.rest, databaseUrl: config.DATABASE_URL, retention: guildData, departures, logger: guildLogger }) : undefined;
  guildReconciler?.start((config.GUILD_RECONCILE_SECONDS ?? 86_400) * 1000);

  let stopping: Promise<void> | undefined;
  return {
    client,
    router,
    keys,
    api,
    gatewayless: initialResponses !== undefined,
    guildData,
    sweepReports: reports,
    ...(guildReconciler ? { guildReconciler } : {}),
    seen: sharedState?.seenInteractions() ?? new MemorySeenInteractions(),
    ...(initialResponses ? { initialResponses } : {}),
    connected() {
      held?.release();
      return connecting ?? Promise.resolve();
    },
    dispatch(raw) {
      if (!accepting) return false;
      emitInteraction(client, raw);
      return true;
    },
    stop() {
      stopping ??= (async () => {
        accepting = false;
        await within(router.drain(), opts.drainTimeoutMs ?? 10_000);
        for (const command of commands) command.dispose?.();
        await sweeps?.stop();
        await countingTrail?.settled();
        listening?.stop();
        await listening?.settled();
        guildData.stop();
        guildReconciler?.stop();
        await guildReconciler?.settled();
        await guildData.settled();
        await services.audit.flush();
        await client.destroy();
        await keys.close();
        await settings.close();
        await sweepStore?.close();
        await departures.close();
        await ownPending?.close();
        await ownLease?.close();
        await ownSharedState?.close();
      })();
      return stopping;
    },
  };
}
