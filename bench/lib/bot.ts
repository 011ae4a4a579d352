/**
 * The production bot, built by `createBot` (src/app.ts), with its Discord REST captured and its
 * key store on a temporary SQLite file. Scenarios only choose where the feed API is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { createBot, type BotApp } from '../../src/app.js';
import { ConfigSchema } from '../../src/config.js';
import type { StoredKey } from '../../src/keys/store.js';
import type { Logger } from '../../src/logger.js';
import type { SlotLease } from '../../src/leases/lease.js';
import { RestCapture } from './discord.js';

export const BENCH_SECRET = Buffer.alloc(32, 0x5b);
export const ADMIN_USER_ID = '1400000000000000001';

export interface BenchBot {
  app: BotApp;
  capture: RestCapture;
  dir: string;
  setKey(guildId: string, apiKey: string): Promise<void>;
  close(): Promise<void>;
}

export interface BenchBotOptions {
  /** Feed API base URL, e.g. `https://127.0.0.1:1234` or a MockAgent origin. */
  apiUrl: string;
  dispatcher: Dispatcher;
  logger: Logger;
  timeoutMs?: number;
  /** Discord REST: captured in-process (default) or a URL (an emulator). */
  discordApiUrl?: string;
  /** The lease interactions are claimed in; default the bot's own (the SQLite coordination file). */
  lease?: SlotLease;
}

export function storedKey(apiKey: string): StoredKey {
  return {
    apiKey,
    setBy: ADMIN_USER_ID,
    setAt: '2026-11-01T10:00:00.000Z',
    scopes: ['feeds:read', 'feeds:write', 'stats:read'],
    scopesKnown: true,
  };
}

export async function startBenchBot(opts: BenchBotOptions): Promise<BenchBot> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-'));
  const capture = new RestCapture();
  const app = await createBot(
    {
      FEED_API_URL: opts.apiUrl,
      KEY_ENCRYPTION_SECRET: BENCH_SECRET,
      KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
      DATABASE_URL: join(dir, 'keys.sqlite'),
      DISCORD_API_URL: opts.discordApiUrl,
      // The product's own default unless a scenario says otherwise.
      FEED_API_TIMEOUT_MS: opts.timeoutMs ?? ConfigSchema.shape.FEED_API_TIMEOUT_MS.parse(undefined),
    },
    {
      logger: opts.logger,
      dispatcher: opts.dispatcher,
      ...(opts.discordApiUrl ? {} : { rest: capture.rest }),
      drainTimeoutMs: 15_000,
      ...(opts.lease ? { lease: opts.lease } : {}),
    },
  );
  if (!opts.discordApiUrl) app.client.rest.setToken('bench-token-not-real');
  return {
    app,
    capture,
    dir,
    setKey: (guildId, apiKey) => app.keys.set(guildId, storedKey(apiKey)),
    async close() {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
