/**
 * The real bot process (`src/index.ts`, as `npm start` runs it, from source) in either transport,
 * for scenario 10: INTERACTIONS_MODE=http on a loopback port, or over the gateway; against the
 * Discord emulator and a feed API over HTTPS, with its keys in a SQLite file written beforehand.
 * Emulated guilds can carry the ids the sandbox gave its scratch servers, so one id names the
 * same guild on both sides.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateGuilds, type EmulatedGuild } from '@feedbot/discord-emulator';
import { freePort } from '@feedbot/playground';
import { KeyStore } from '../../src/keys/store.js';
import { BENCH_SECRET, storedKey } from './bot.js';
import { REPO_ROOT, spawnMeasured, type MeasuredChild } from './child.js';
import { withTimeout } from './time.js';

/** The application every scenario-10 emulator serves (the bench payloads' application_id). */
export const APP_ID = '1200000000000000001';

export interface FeedApiTarget {
  url: string;
  /** PEM of the API's certificate (the sandbox's, self-signed), trusted through FEED_API_CA_FILE. */
  caPem?: string;
}

export interface BotEnvironment {
  /** Working folder: the CA file and key stores go here. */
  dir: string;
  token: string;
  discordApiUrl: string;
  /** The application's public key, as the emulator reports it (INTERACTIONS_MODE=http). */
  publicKeyHex: string;
  feedApi: FeedApiTarget;
  /** The key store (a SQLite file), shared by every process started with this environment. */
  databaseFile: string;
}

export interface RunningBot extends MeasuredChild {
  /** HTTP mode: the port of its endpoint, and the endpoint's URL (`http://127.0.0.1:PORT/interactions`). */
  port?: number;
  endpoint?: string;
}

/** Writes one encrypted key per guild, a few at a time (the store serialises per guild only). */
export async function storeKeys(file: string, keys: ReadonlyMap<string, string>): Promise<void> {
  const store = await KeyStore.open({ databaseUrl: file, secret: BENCH_SECRET });
  try {
    const entries = [...keys];
    for (let start = 0; start < entries.length; start += 64) {
      await Promise.all(entries.slice(start, start + 64).map(([guildId, apiKey]) => store.set(guildId, storedKey(apiKey))));
    }
  } finally {
    await store.close();
  }
}

/** Emulated guilds (a category, 2 text channels, 2 roles each) with the given ids. */
export function guildsWithIds(ids: readonly string[]): EmulatedGuild[] {
  return generateGuilds(ids.length).map((guild, i) => {
    const id = ids[i]!;
    // The @everyone role's id is the guild's own.
    return { ...guild, id, roles: guild.roles.map((role) => (role.id === guild.id ? { ...role, id } : role)) };
  });
}

function baseEnv(env: BotEnvironment): Record<string, string> {
  const caFile = join(env.dir, 'feed-api-ca.pem');
  if (env.feedApi.caPem) writeFileSync(caFile, env.feedApi.caPem);
  return {
    NODE_ENV: 'production',
    DISCORD_TOKEN: env.token,
    DISCORD_API_URL: env.discordApiUrl,
    FEED_API_URL: env.feedApi.url,
    ...(env.feedApi.caPem ? { FEED_API_CA_FILE: caFile } : {}),
    KEY_ENCRYPTION_SECRET: BENCH_SECRET.toString('base64'),
    DATABASE_URL: env.databaseFile,
    // As in production: one JSON line per interaction, written by the bot like any other.
    LOG_LEVEL: 'info',
    LOG_PRETTY: 'false',
  };
}

/** Starts the bot; `ready()` resolves on its `ready` line (the endpoint is open, or READY came). */
export async function spawnBot(env: BotEnvironment, mode: 'http' | 'gateway', opts: { redisUrl?: string; extraEnv?: Record<string, string> } = {}): Promise<RunningBot> {
  const port = mode === 'http' ? await freePort() : undefined;
  // No load balancer watches these bots' /readyz: the shutdown grace would only delay each stop.
  const http: Record<string, string> =
    port === undefined ? {} : { INTERACTIONS_MODE: 'http', DISCORD_PUBLIC_KEY: env.publicKeyHex, HOST: '127.0.0.1', PORT: String(port), SHUTDOWN_GRACE_MS: '0' };
  const child = spawnMeasured({
    entry: join(REPO_ROOT, 'src/index.ts'),
    cwd: env.dir,
    env: { ...baseEnv(env), ...http, ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}), ...opts.extraEnv },
    readyWhen: (line) => line.includes('"msg":"ready"'),
  });
  return port === undefined ? child : Object.assign(child, { port, endpoint: `http://127.0.0.1:${port}/interactions` });
}

/** Waits for every bot's `ready` line; a bot that exits or hangs fails with its last lines. */
export async function allReady(bots: readonly RunningBot[], what: string, timeoutMs = 120_000): Promise<void> {
  await Promise.all(
    bots.map((bot, i) =>
      withTimeout(bot.ready, timeoutMs, `${what} #${i + 1} ready`).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${bot.output.slice(-10).join('\n')}`);
      }),
    ),
  );
}
