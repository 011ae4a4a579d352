/**
 * The bot's router with real collaborators: discord.js objects from raw payloads (REST captured),
 * the real API client over undici MockAgent, and the real encrypted key store on a temp SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { MockAgent, type Dispatcher, type Interceptable } from 'undici';
import { test } from 'vitest';
import { pino } from 'pino';
import type { APIInteraction } from 'discord-api-types/v10';
import type { Stats } from '@feedbot/feed-api-contract';
import { FeedApiClient } from '../../src/api/client.js';
import { createRouter, type InteractionRouter } from '../../src/interactions/router.js';
import type { InteractionClaims } from '../../src/interactions/claims.js';
import { createCommands } from '../../src/commands.js';
import type { AppCommand } from '../../src/interactions/command.js';
import { KeyStore, type KeyStoreOptions } from '../../src/keys/store.js';
import { GuildSettingsStore } from '../../src/settings/store.js';
import { createAuditTrail } from '../../src/audit/trail.js';
import type { AuditTrail } from '../../src/audit/events.js';
import { baseLoggerOptions, type Logger } from '../../src/logger.js';
import { ChannelDirectory } from '../../src/bot/channel-directory.js';
import type { PendingStore } from '../../src/interactions/pending.js';
import { MemoryPendingStore } from '../../src/interactions/pending-memory.js';
import { InitialResponses } from '../../src/http/initial-response.js';
import { DepartureStore } from '../../src/guild-data/departures.js';
import { GuildDataRetention } from '../../src/guild-data/retention.js';
import type { BotServices } from '../../src/interactions/context.js';
import { startHealthSweeps, type HealthSweeps } from '../../src/health/sweep/index.js';
import { MemoryLease } from '../../src/leases/lease-memory.js';
import { SweepStore } from '../../src/health/sweep/store.js';
import { sweepReports } from '../../src/health/sweep/events.js';
import { ADMIN_ID, GUILD_ID, createTestDiscord, type TestDiscord } from './discord.js';
import { mirroredInitialResponses, startHttpTransportForTests, TEST_TRANSPORT, type Transport } from './http-transport.js';

export const API_ORIGIN = 'https://feeds.test';
export const API_BASE = `${API_ORIGIN}/v1`;
export const TEST_KEY = 'fbk_TestKeyForUnitTests_9f3Kq2';
export const SECRET = Buffer.alloc(32, 7);

export interface BotHarness {
  transport: Transport;
  /** Temp folder holding the SQLite key store. */
  dir: string;
  discord: TestDiscord;
  agent: MockAgent;
  api: Interceptable;
  client: FeedApiClient;
  keys: KeyStore;
  /** Per-guild settings, on the same SQLite file as the keys. */
  settings: GuildSettingsStore;
  audit: AuditTrail;
  router: InteractionRouter;
  /** Forgetting servers, on the same SQLite file; the bot counts as absent from every guild. */
  guildData: GuildDataRetention;
  departures: DepartureStore;
  /** The open confirmations the router and guildData share. */
  pending: PendingStore;
  logger: Logger;
  logs: Record<string, unknown>[];
  rawLogs: string[];
  /** The services the router's commands see (what app.ts attaches the sweeps to). */
  services: BotServices;
  /**
   * Starts the health sweeps on this harness's stores, API client and Discord client, and
   * attaches them to `services` as app.ts does, so `/feedbot digest` and `/feedbot audit-channel
   * status` see them. The clock is the harness's `now` (or Date.now); the lease is in memory; the
   * scheduler's own timer is left to tick, and a test drives it with `scheduler.tick()`/`idle()`.
   * Stopped by close().
   */
  startSweeps(opts?: { intervalMs?: number; tickMs?: number }): Promise<HealthSweeps>;
  /** Dispatches the raw payload and waits until the router has finished with it. */
  run(raw: APIInteraction): Promise<void>;
  setKey(guildId?: string, apiKey?: string): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  deferAfterMs?: number;
  confirmTtlMs?: number;
  timeoutMs?: number;
  now?: () => number;
  /** The feed API at a real address through a real dispatcher, instead of API_BASE on the MockAgent. */
  api?: { baseUrl: string; dispatcher: Dispatcher };
  /** Key store settings for storage fault tests (a cold cache, a short busy timeout). */
  keyStore?: Pick<KeyStoreOptions, 'cacheSize' | 'busyTimeoutMs'>;
  /** How interactions reach the router; default FEEDBOT_TEST_TRANSPORT (gateway). */
  transport?: Transport;
  /** Where open confirmations are kept; default this process's memory. */
  pending?: PendingStore;
  /** The commands the router knows; default the bot's (createCommands), e.g. plus a test-only module. */
  commands?: () => AppCommand[];
  /** Interaction claims, as app.ts gives the router over the gateway, made with the harness's logger; default none (one process). */
  claims?: (logger: Logger) => InteractionClaims;
}

export async function createBotHarness(opts: HarnessOptions = {}): Promise<BotHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-test-'));
  const agent = new MockAgent();
  agent.disableNetConnect();
  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = chunk.toString();
      rawLogs.push(line);
      logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  // The bot's own redaction and error serializer: what the tests read is what production logs.
  const logger = pino(baseLoggerOptions({ level: 'debug' }), sink);
  const client = new FeedApiClient({
    baseUrl: opts.api?.baseUrl ?? API_BASE,
    dispatcher: opts.api?.dispatcher ?? agent,
    logger,
    retryBaseMs: 1,
    timeoutMs: opts.timeoutMs ?? 5_000,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const keys = await KeyStore.open({ databaseUrl: join(dir, 'keys.sqlite'), secret: SECRET, logger, ...opts.keyStore });
  const transport = opts.transport ?? TEST_TRANSPORT;
  const responses = transport === 'http' ? new InitialResponses() : undefined;
  const discord = createTestDiscord(responses ? { wrapRest: (recorded) => mirroredInitialResponses(responses, recorded) } : {});
  const settings = await GuildSettingsStore.open({ databaseUrl: join(dir, 'keys.sqlite'), logger });
  const commands = (opts.commands ?? createCommands)();
  const audit = createAuditTrail({ client: discord.client, settings, logger });
  const pending = opts.pending ?? new MemoryPendingStore();
  const departures = await DepartureStore.open({ databaseUrl: join(dir, 'keys.sqlite'), logger });
  const guildData = new GuildDataRetention({
    services: { keys, settings, pending, departures },
    retentionHours: 168,
    presence: async () => 'absent',
    logger,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const services: BotServices = {
    api: client,
    keys,
    settings,
    audit,
    channels: new ChannelDirectory(discord.client),
    pending,
    guildData,
    logger,
    downloads: agent,
    ...(opts.deferAfterMs !== undefined ? { deferAfterMs: opts.deferAfterMs } : {}),
    ...(opts.confirmTtlMs !== undefined ? { confirmTtlMs: opts.confirmTtlMs } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  };
  const router = createRouter(commands, services, opts.claims ? { claims: opts.claims(logger) } : {});
  let sweeps: { running: HealthSweeps; store: SweepStore } | undefined;
  const http = responses
    ? await startHttpTransportForTests({
        responses,
        handle: (raw) => {
          const interaction = discord.dispatch(raw);
          return { interaction, done: router.handle(interaction) };
        },
      })
    : undefined;
  return {
    transport,
    dir,
    discord,
    agent,
    api: agent.get(API_ORIGIN),
    client,
    keys,
    settings,
    audit,
    router,
    guildData,
    departures,
    pending,
    logger,
    logs,
    rawLogs,
    services,
    async startSweeps(sweepOpts = {}) {
      if (sweeps) return sweeps.running;
      const now = opts.now ?? Date.now;
      const store = await SweepStore.open({ databaseUrl: join(dir, 'keys.sqlite'), logger });
      const running = await startHealthSweeps({
        intervalMs: sweepOpts.intervalMs ?? 21_600_000,
        transport: 'gateway',
        databaseUrl: join(dir, 'keys.sqlite'),
        client: discord.client,
        api: client,
        keys,
        settings,
        audit,
        channels: services.channels,
        store,
        reports: sweepReports(),
        logger,
        now,
        lease: new MemoryLease(now),
        ...(sweepOpts.tickMs ? { tickMs: sweepOpts.tickMs } : {}),
      });
      services.sweeps = running;
      sweeps = { running, store };
      return running;
    },
    run: http ? (raw) => http.run(raw) : (raw) => router.handle(discord.dispatch(raw)),
    async setKey(guildId = GUILD_ID, apiKey = TEST_KEY) {
      await keys.set(guildId, {
        apiKey,
        setBy: ADMIN_ID,
        setAt: '2026-11-01T10:00:00.000Z',
        scopes: ['feeds:read', 'feeds:write', 'stats:read'],
      });
    },
    async close() {
      await http?.close();
      await router.drain();
      await sweeps?.running.stop();
      await sweeps?.store.close();
      for (const command of commands) command.dispose?.();
      await audit.flush();
      await guildData.settled();
      await discord.destroy();
      await departures.close();
      await keys.close();
      await settings.close();
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface BotFixtures {
  /** Options for `bot`; a describe block changes them with `botTest.override({ harness: {…} })`. */
  harness: HarnessOptions;
  /** Whether `bot` starts with TEST_KEY stored for GUILD_ID. */
  withKey: boolean;
  /** A harness for one test; afterwards every mocked API answer must have been used. */
  bot: BotHarness;
}

/** `botTest('…', async ({ bot }) => …)`: a test that gets a fresh bot harness, closed after it. */
export const botTest = test.extend<BotFixtures>({
  harness: {},
  withKey: true,
  bot: async ({ harness, withKey }, use) => {
    const h = await createBotHarness(harness);
    try {
      if (withKey) await h.setKey();
      await use(h);
      h.agent.assertNoPendingInterceptors();
    } finally {
      await h.close();
    }
  },
});

/** Standard rate-limit headers for mocked API answers. */
export function rl(remaining = 99, resetInSeconds = 60): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + resetInSeconds),
  };
}

export const sampleFeeds = {
  feeds: [
    {
      id: 1,
      cuenta: 'nasa',
      canal: '1300000000000000001',
      estado: 'activo',
      tipos: ['post', 'reel'],
      filtros: 0,
      ultimoPost: '2026-11-20T18:30:00.000Z',
    },
    {
      id: 2,
      cuenta: 'esa',
      canal: '1300000000000000002',
      estado: 'pausado',
      tipos: ['story'],
      filtros: 2,
      ultimoPost: null,
    },
  ],
  total: 2,
  plan: 'server',
};

/** A valid GET /stats body for GUILD_ID (or `servidor`), with nothing forwarded yet. */
export function sampleStats(overrides: Partial<Stats> = {}): Stats {
  return {
    servidor: GUILD_ID,
    plan: 'server',
    feedsActivos: 0,
    feedsPausados: 0,
    postsHoy: 0,
    postsEstaSemana: 0,
    cuentaMasActiva: null,
    ultimaActividad: null,
    ...overrides,
  };
}
