/**
 * Configuration from environment variables, validated once at start-up. A bad environment stops
 * the bot with one message naming every problem — and never echoes a secret's value.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseRedisUrl } from './keys/redis-url.js';
import { parseStoreUrl } from './keys/store-url.js';
import { parseShardIds } from './shard-ids.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * A base URL with one of the given schemes. `URL.canParse` first: zod's own URL check accepts
 * `127.0.0.1:8443` (its "scheme" is `127.0.0.1:`), and nothing below may throw. The value is
 * never echoed: a URL can carry a password.
 */
const baseUrl = (name: string, schemes: readonly ('https' | 'http')[], example: string, hint = '') =>
  z
    .string({ error: `${name} is required, e.g. ${example}` })
    .trim()
    .superRefine((value, ctx) => {
      const problem = urlProblem(value, schemes);
      if (problem) ctx.addIssue({ code: 'custom', message: `${name} ${problem}, e.g. ${example}${hint}` });
    })
    .transform((u) => u.replace(/\/+$/, ''));

function urlProblem(value: string, schemes: readonly string[]): string | undefined {
  const wanted = schemes.map((s) => `${s}://`).join(' or ');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return `must start with ${wanted}`;
  if (!URL.canParse(value)) return 'is not a valid URL';
  const url = new URL(value);
  if (!schemes.includes(url.protocol.slice(0, -1))) return `must use ${wanted}`;
  if (url.hostname === '') return 'has no host';
  if (url.search || url.hash) return 'must not have a query or fragment';
  return undefined;
}

const FEED_API_HTTPS_HINT =
  ' (the feed API refuses plain HTTP and keys must not travel in clear; for a self-signed certificate set FEED_API_CA_FILE instead of turning TLS checks off)';

/** Where to get a token, said whenever the token is the problem. */
const TOKEN_HELP = 'copy it from https://discord.com/developers/applications → your app → Bot → Reset Token';

/**
 * Bot tokens are three base64url parts; the first is the application id. Checking the shape here
 * turns a pasted client secret, a "Bot " prefix or a truncated copy into a message at start-up
 * instead of a failed login.
 */
const botToken = z
  .string({ error: `DISCORD_TOKEN is required (${TOKEN_HELP})` })
  .trim()
  .superRefine((token, ctx) => {
    const problem = /^bot\s/i.test(token)
      ? 'must be the token alone, without the "Bot " prefix'
      : !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token) || !applicationIdFromToken(token)
        ? 'does not look like a bot token (three parts separated by dots, the first one the application id)'
        : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: `DISCORD_TOKEN ${problem}: ${TOKEN_HELP}` });
  });

/** A readable PEM file of CA certificates; its content is loaded once at start-up. */
const caFile = z
  .string()
  .trim()
  .transform((path, ctx) => {
    let pem: string;
    try {
      pem = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      ctx.addIssue({ code: 'custom', message: `FEED_API_CA_FILE cannot be read (${code}): give the path of a PEM certificate, e.g. the one \`npm run sandbox\` prints` });
      return z.NEVER;
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      ctx.addIssue({ code: 'custom', message: 'FEED_API_CA_FILE holds no PEM certificate (-----BEGIN CERTIFICATE-----)' });
      return z.NEVER;
    }
    return { path, pem };
  });

/**
 * A key-encryption secret: 32 random bytes in standard base64, as `npm run secret` prints them.
 * `name` is the variable the messages name; `missing` what to say when it is not set. The one
 * parser of a secret, so that `npm run keys:rotate` accepts exactly what the bot starts with.
 */
export function base64SecretField(name = 'KEY_ENCRYPTION_SECRET', missing = `${name} is required (run \`npm run secret\` to make one)`) {
  return z
    .string({ error: missing })
    .trim()
    .refine((s) => /^[A-Za-z0-9+/]+={0,2}$/.test(s) && Buffer.from(s, 'base64').length === 32, {
      error: `${name} must be 32 random bytes in base64 (run \`npm run secret\` to make one)`,
    })
    .transform((s) => Buffer.from(s, 'base64'));
}

const base64Secret = base64SecretField();

/** A TCP port; digits only, so `8080abc` or `1e3` is refused rather than half-read. */
const port = (name: string, example: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65535, { error: `${name} must be a port number from 1 to 65535, e.g. ${example}` })
    .transform(Number);

/** RFC 1123 host names (`localhost`, `metrics.internal`). */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An address to listen on: an IPv4 or IPv6 address (without brackets) or a host name. */
const listenHost = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => isIP(v) !== 0 || HOST_NAME.test(v), {
      error: `${name} must be an IP address or a host name, e.g. 127.0.0.1 (the default), ::1, or 0.0.0.0 for every interface`,
    });

const snowflake = (name: string) => z.string().trim().regex(/^\d{17,20}$/, { error: `${name} must be a Discord id (17–20 digits)` });

/** sqlite://… (default), postgres://…, redis:// or rediss://…; the parser's messages never quote the URL (it may hold a password). */
const databaseUrl = z
  .string()
  .trim()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      parseStoreUrl(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : 'DATABASE_URL is not valid' });
    }
  });

/** redis:// or rediss://…, where replicas share the rate gate and feeds cache; messages never quote the URL. */
const redisUrl = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    try {
      parseRedisUrl(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : 'REDIS_URL is not valid' });
    }
  });

/** SHARD_IDS: the shards this process (or this host's manager) runs, e.g. `0-3` or `0,2,5`. */
const shardIds = z
  .string()
  .trim()
  .transform((text, ctx) => {
    try {
      return parseShardIds(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `SHARD_IDS: ${(error as Error).message}; write ids and ranges like 0-3 or 0,2,5` });
      return z.NEVER;
    }
  });

const shardCount = z
  .string()
  .trim()
  .refine((v) => /^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65_536, { error: 'SHARD_COUNT must be a whole number of shards from 1, e.g. 16' })
  .transform(Number);

/**
 * The OpenTelemetry variables feedbot reads itself (the SDK reads the others: headers, time-out,
 * compression, resource attributes, batch sizes). Checked here so a typo stops the start with one
 * line instead of the SDK's quiet fallback; OTLP over gRPC is not shipped (one exporter fewer).
 */
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const otlpProtocol = (name: string) =>
  z.enum(OTLP_PROTOCOLS, {
    error: `${name} must be http/protobuf (the default) or http/json; grpc is not supported: point the bot at the collector's OTLP/HTTP port (4318)`,
  });
const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
const OTEL_FIELDS = {
  OTEL_SDK_DISABLED: z.enum(['true', 'false'], { error: 'OTEL_SDK_DISABLED must be true or false' }).optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none'], { error: 'OTEL_TRACES_EXPORTER must be otlp or none' }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: baseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', ['https', 'http'], 'http://127.0.0.1:4318').optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: baseUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['https', 'http'], 'http://127.0.0.1:4318/v1/traces').optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol('OTEL_EXPORTER_OTLP_PROTOCOL').optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL').optional(),
  OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS, { error: `OTEL_TRACES_SAMPLER must be one of ${TRACES_SAMPLERS.join(', ')}` }).optional(),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .trim()
    .refine((v) => /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(v), { error: 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, e.g. 0.1' })
    .transform(Number)
    .optional(),
  OTEL_SERVICE_NAME: z.string().trim().max(255, { error: 'OTEL_SERVICE_NAME must be at most 255 characters' }).optional(),
};

/** Every variable on its own; ConfigSchema adds the checks across variables. */
export const ConfigFields = z.object({
  DISCORD_TOKEN: botToken,
  DISCORD_APPLICATION_ID: snowflake('DISCORD_APPLICATION_ID').optional(),
  FEED_API_URL: baseUrl('FEED_API_URL', ['https'], 'https://api.example.com/v1', FEED_API_HTTPS_HINT),
  FEED_API_CA_FILE: caFile.optional(),
  KEY_ENCRYPTION_SECRET: base64Secret,
  KEY_ENCRYPTION_SECRET_PREVIOUS: base64Secret.optional(),
  DATABASE_URL: databaseUrl.default('sqlite://./data/feedbot.sqlite'),
  /** Replicas share the per-key rate gate and the feeds cache there; each process keeps its own when unset. */
  REDIS_URL: redisUrl.optional(),
  DISCORD_API_URL: baseUrl('DISCORD_API_URL', ['https', 'http'], 'http://127.0.0.1:8787/api').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  LOG_PRETTY: z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1').optional(),
  DEV_GUILD_ID: snowflake('DEV_GUILD_ID').optional(),
  FEED_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8_000),
  /** The ops listener (/healthz, /readyz, /metrics) starts only when this is set. */
  METRICS_PORT: port('METRICS_PORT', '9464').optional(),
  METRICS_HOST: listenHost('METRICS_HOST').default('127.0.0.1'),
  /** Total shards of the whole bot, every host together; Discord's recommendation when unset. */
  SHARD_COUNT: shardCount.optional(),
  SHARD_IDS: shardIds.optional(),
  /** `gateway` (default): interactions over the gateway; `http`: Discord POSTs them to POST /interactions on PORT. */
  INTERACTIONS_MODE: z.enum(['gateway', 'http'], { error: 'INTERACTIONS_MODE must be gateway or http' }).default('gateway'),
  /**
   * HTTP mode: after SIGTERM, how long POST /interactions still answers as usual while /readyz says
   * 503, so a load balancer takes the replica out before its listener closes (a POST it already
   * sent is never retried, so none may be refused).
   */
  SHUTDOWN_GRACE_MS: z.coerce
    .number({ error: 'SHUTDOWN_GRACE_MS must be a whole number of ms from 0 to 60000' })
    .int({ error: 'SHUTDOWN_GRACE_MS must be a whole number of ms from 0 to 60000' })
    .min(0, { error: 'SHUTDOWN_GRACE_MS must be a whole number of ms from 0 to 60000' })
    .max(60_000, { error: 'SHUTDOWN_GRACE_MS must be a whole number of ms from 0 to 60000' })
    .default(5_000),
  PORT: port('PORT', '8080').default(8080),
  HOST: listenHost('HOST').default('0.0.0.0'),
  /** Hours a removed server's key, settings and confirmations are kept in case the bot is added back; 0 deletes them at once. */
  GUILD_DATA_RETENTION_HOURS: z
    .string()
    .trim()
    .refine((v) => /^\d{1,5}$/.test(v) && Number(v) <= 8_760, { error: 'GUILD_DATA_RETENTION_HOURS must be a whole number of hours from 0 to 8760 (a year), e.g. 168' })
    .transform(Number)
    .default(168),
  /** Seconds between HTTP mode's reconciliations of the servers the bot is in (default a day; shorter only for tests). */
  GUILD_RECONCILE_SECONDS: z
    .string()
    .trim()
    .refine((v) => /^\d{1,7}$/.test(v) && Number(v) >= 5 && Number(v) <= 604_800, { error: 'GUILD_RECONCILE_SECONDS must be a whole number of seconds from 5 to 604800, e.g. 86400' })
    .transform(Number)
    .default(86_400),
  /** Seconds between two health sweeps of a server (one GET /feeds each), spread evenly over that time. */
  HEALTH_SWEEP_SECONDS: z
    .string()
    .trim()
    .refine((v) => /^\d{1,8}$/.test(v) && Number(v) >= 10, { error: 'HEALTH_SWEEP_SECONDS must be a whole number of seconds from 10, e.g. 21600 (6 hours)' })
    .transform(Number)
    .default(21_600),
  /** The application's public key (Developer Portal → General Information), for INTERACTIONS_MODE=http. */
  DISCORD_PUBLIC_KEY: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{64}$/i, { error: 'DISCORD_PUBLIC_KEY must be the 64 hexadecimal digits of the Developer Portal → General Information → Public Key' })
    .optional(),
  ...OTEL_FIELDS,
});

export const ConfigSchema = ConfigFields.superRefine((config, ctx) => {
  if (config.INTERACTIONS_MODE === 'http' && config.DISCORD_PUBLIC_KEY === undefined) {
    ctx.addIssue({ code: 'custom', path: ['DISCORD_PUBLIC_KEY'], message: 'DISCORD_PUBLIC_KEY is required with INTERACTIONS_MODE=http: copy it from Developer Portal → General Information → Public Key' });
  }
  if (config.SHARD_IDS === undefined) return;
  if (config.SHARD_COUNT === undefined) {
    ctx.addIssue({ code: 'custom', path: ['SHARD_IDS'], message: 'SHARD_IDS needs SHARD_COUNT, the total of every host, e.g. SHARD_IDS=0-3 SHARD_COUNT=16' });
    return;
  }
  const outside = config.SHARD_IDS.filter((id) => id >= config.SHARD_COUNT!);
  if (outside.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['SHARD_IDS'], message: `SHARD_IDS has shard ${outside[0]}, but shards are numbered 0 to ${config.SHARD_COUNT - 1} with SHARD_COUNT=${config.SHARD_COUNT}` });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee .env.example for every variable.`);
    this.name = 'ConfigError';
  }
}

/** Empty strings count as unset, as in most .env loaders. */
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1].trim() !== ''));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseEnv(ConfigSchema, env);
}

interface SecretsFromEnv {
  secret: Buffer;
  previousSecrets: Buffer[];
}

const SecretFields = ConfigFields.pick({ KEY_ENCRYPTION_SECRET: true, KEY_ENCRYPTION_SECRET_PREVIOUS: true });

/**
 * KEY_ENCRYPTION_SECRET and the optional KEY_ENCRYPTION_SECRET_PREVIOUS (one secret, as the
 * rotation in README.md and docs/OPERATIONS.md sets it), read by loadConfig's own fields so that
 * what needs only the secrets accepts exactly what the bot starts with. Throws ConfigError.
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): SecretsFromEnv {
  const { KEY_ENCRYPTION_SECRET: secret, KEY_ENCRYPTION_SECRET_PREVIOUS: previous } = parseEnv(SecretFields, env);
  return { secret, previousSecrets: previous === undefined || previous.equals(secret) ? [] : [previous] };
}

function parseEnv<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(withoutEmpty(env));
  if (parsed.success) return parsed.data;
  // Messages are ours (set above), so they never contain the offending value.
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.join('.');
    return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
  });
  throw new ConfigError([...new Set(problems)]);
}

/** loadConfig for an entry point: a bad environment prints its one message and exits 1. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** The application id is the first segment of a bot token (base64 of the id). */
export function applicationIdFromToken(token: string): string | undefined {
  const first = token.split('.')[0];
  if (!first) return undefined;
  const decoded = Buffer.from(first, 'base64').toString('utf8');
  return /^\d{17,20}$/.test(decoded) ? decoded : undefined;
}

/**
 * Discord's refusal of the token (a 401 at login or on a REST call), as the one line an operator
 * needs; undefined for any other error.
 */
export function tokenRefusal(error: unknown): string | undefined {
  const e = error as { status?: unknown; code?: unknown } | null | undefined;
  if (e?.status !== 401 && e?.code !== 'TokenInvalid') return undefined;
  return `Discord refused DISCORD_TOKEN (401 Unauthorized): the token is wrong or was reset. Set DISCORD_TOKEN to a new one: ${TOKEN_HELP}.`;
}
