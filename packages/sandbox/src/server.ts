/**
 * startSandbox: the whole sandbox in-process (tests, the demo, benchmarks, `npm run sandbox`).
 */
import { createServer as createHttpsServer } from 'node:https';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RATE_LIMIT_PER_MINUTE, RATE_LIMIT_WINDOW_MS } from '@feedbot/feed-api-contract';
import { silentLogger, type Logger } from './log.js';
import { DEFAULT_MAX_FEEDS_PER_SERVER, SandboxAdmin } from './admin.js';
import { buildApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import { withDefaultLimits, type ConnectionLimits } from './connection-guard.js';
import { createFrontDoor } from './front-door.js';
import { FixedWindowLimiter, type RateLimitConfig } from './rate-limit.js';
import { RequestCount } from './request-count.js';
import { seedDemoData, type SeedResult } from './seed.js';
import { Simulator } from './simulator.js';
import { SandboxStore } from './store.js';
import { ApiFaults } from './faults.js';
import { loadTls, type TlsFiles } from './tls.js';

export const DEFAULT_DATA_DIR = 'data/sandbox';
export const DEFAULT_PORT = 8443;
export const DB_FILE = 'sandbox.db';
/** Requests bodies above this get 400 body_too_large. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface SandboxOptions {
  /** Where the database, certificate and demo key live (created if missing). */
  dataDir: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Seed the demo data with this seed on first run; false/undefined: no seed. */
  seed?: number | false;
  /** Forward generated posts every `intervalMs`; false/undefined: only on `admin.simulateTick()`. */
  simulate?: { intervalMs: number; probability?: number; seed?: number } | false;
  /** Default: 100 requests per 60 s per key (the spec). */
  rateLimit?: Partial<RateLimitConfig>;
  clock?: Clock;
  logger?: Logger;
  /** Use this certificate instead of generating one in dataDir. */
  tls?: TlsFiles;
  maxFeedsPerServer?: number;
  bodyLimit?: number;
  /** Time-outs and the per-address cap of connections; each defaults to DEFAULT_CONNECTION_LIMITS. */
  connectionLimits?: Partial<ConnectionLimits>;
}

export interface RunningSandbox {
  /** e.g. https://127.0.0.1:8443 (no trailing slash) */
  url: string;
  port: number;
  host: string;
  dataDir: string;
  /**
   * The certificate clients must trust: as `ca` (the bot: FEED_API_CA_FILE), or for any Node
   * process as NODE_EXTRA_CA_CERTS in the environment it starts with.
   */
  caFile: string;
  caPem: string;
  admin: SandboxAdmin;
  /** API requests answered, per server (tests: an action that must cost none). */
  requests: RequestCount;
  seed: SeedResult | undefined;
  /** Faults a test switches on (faults.ts; none by default), and the sandbox's own 429s. */
  faults: ApiFaults;
  /** Forget every rate-limit window (tests that need a fresh budget). */
  resetRateLimits(): void;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const dataDir = resolve(options.dataDir);
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? silentLogger()).child({ component: 'sandbox' });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });

  const tls = await loadTls(dataDir, options.tls);
  if (tls.generated) logger.info({ certFile: tls.caFile }, 'generated a self-signed certificate');
  const store = await SandboxStore.open(join(dataDir, DB_FILE));
  const closers: (() => Promise<void>)[] = [() => store.close()];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) await close().catch((err: unknown) => logger.warn({ err }, 'close failed'));
  };

  try {
    const maxFeedsPerServer = options.maxFeedsPerServer ?? DEFAULT_MAX_FEEDS_PER_SERVER;
    const limiter = new FixedWindowLimiter(
      { limit: options.rateLimit?.limit ?? RATE_LIMIT_PER_MINUTE, windowMs: options.rateLimit?.windowMs ?? RATE_LIMIT_WINDOW_MS },
      clock,
    );
    const simulateOptions = options.simulate || undefined;
    const simulator = new Simulator(store, clock, logger, {
      probability: simulateOptions?.probability,
      seed: simulateOptions?.seed ?? (options.seed === false ? undefined : options.seed),
    });
    const admin = new SandboxAdmin(store, clock, simulator, maxFeedsPerServer);
    const seed = typeof options.seed === 'number' ? await seedDemoData(store, { seed: options.seed, clock }) : undefined;
    if (seed?.seeded) logger.info({ feeds: seed.feeds, posts: seed.posts }, 'seeded demo data');

    let url = '';
    const requests = new RequestCount();
    const faults = new ApiFaults();
    const app = await buildApp({
      requests,
      faults,
      store,
      limiter,
      clock,
      logger,
      baseUrl: () => url,
      maxFeedsPerServer,
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      createServer: (handler) => createHttpsServer({ cert: tls.certPem, key: tls.keyPem, minVersion: 'TLSv1.2' }, handler),
    });
    closers.push(() => app.close());

    const front = createFrontDoor({ tlsServer: app.server, limiter, baseUrl: () => url, limits: withDefaultLimits(options.connectionLimits) });
    const address = await front.listen(options.port ?? 0, host);
    closers.push(() => front.close());
    url = `https://${urlHost(host)}:${address.port}`;

    if (simulateOptions) {
      simulator.start(simulateOptions.intervalMs);
      closers.push(() => simulator.stop());
    }
    logger.info({ url, dataDir }, 'sandbox listening');

    let closed: Promise<void> | undefined;
    return {
      url,
      port: address.port,
      host,
      dataDir,
      caFile: tls.caFile,
      caPem: tls.caPem,
      admin,
      requests,
      faults,
      seed,
      resetRateLimits: () => limiter.reset(),
      close: () => (closed ??= closeAll()),
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
