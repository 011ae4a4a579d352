/**
 * Configuration from environment variables, validated once at start-up. A bad environment stops
 * the bot with one message naming every problem — and never echoes a secret's value.
 */
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const httpsUrl = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .pipe(z.url({ error: `${name} must be a URL, e.g. https://api.example.com/v1` }))
    .refine((u) => new URL(u).protocol === 'https:', {
      error: `${name} must use https:// — the feed API refuses plain HTTP and keys must not travel in clear. For a self-signed certificate, trust it with NODE_EXTRA_CA_CERTS instead of turning TLS checks off.`,
    })
    .transform((u) => u.replace(/\/+$/, ''));

const base64Secret = z
  .string({ error: 'KEY_ENCRYPTION_SECRET is required (run `npm run secret` to make one)' })
  .trim()
  .refine((s) => /^[A-Za-z0-9+/]+={0,2}$/.test(s) && Buffer.from(s, 'base64').length === 32, {
    error: 'KEY_ENCRYPTION_SECRET must be 32 random bytes in base64 (run `npm run secret` to make one)',
  })
  .transform((s) => Buffer.from(s, 'base64'));

const snowflake = (name: string) => z.string().trim().regex(/^\d{17,20}$/, { error: `${name} must be a Discord id (17–20 digits)` });

export const ConfigSchema = z.object({
  DISCORD_TOKEN: z
    .string({ error: 'DISCORD_TOKEN is required (the bot token from the Discord developer portal)' })
    .trim()
    .min(1, { error: 'DISCORD_TOKEN is required (the bot token from the Discord developer portal)' }),
  DISCORD_APPLICATION_ID: snowflake('DISCORD_APPLICATION_ID').optional(),
  FEED_API_URL: httpsUrl('FEED_API_URL'),
  KEY_ENCRYPTION_SECRET: base64Secret,
  KEY_ENCRYPTION_SECRET_PREVIOUS: base64Secret.optional(),
  DATABASE_URL: z.string().trim().min(1).default('sqlite://./data/feedbot.sqlite'),
  DISCORD_API_URL: z
    .string()
    .trim()
    .pipe(z.url({ error: 'DISCORD_API_URL must be a URL, e.g. http://127.0.0.1:8787/api' }))
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  LOG_PRETTY: z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1').optional(),
  DEV_GUILD_ID: snowflake('DEV_GUILD_ID').optional(),
  FEED_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8_000),
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
  const parsed = ConfigSchema.safeParse(withoutEmpty(env));
  if (parsed.success) return parsed.data;
  // Messages are ours (set above), so they never contain the offending value.
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.join('.');
    return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
  });
  throw new ConfigError([...new Set(problems)]);
}

/** The application id is the first segment of a bot token (base64 of the id). */
export function applicationIdFromToken(token: string): string | undefined {
  const first = token.split('.')[0];
  if (!first) return undefined;
  const decoded = Buffer.from(first, 'base64').toString('utf8');
  return /^\d{17,20}$/.test(decoded) ? decoded : undefined;
}
