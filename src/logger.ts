/**
 * One pino logger factory for the bot, the sandbox and the emulator.
 *
 * Redaction is the last line of defence: code must not log secrets in the first place, but if a
 * key, token or secret ends up in a logged object under one of these paths, pino replaces it.
 */
import { createRequire } from 'node:module';
import { pino, stdSerializers, type Logger, type LoggerOptions } from 'pino';
import { redactTokens } from './redact.js';
import { traceLogFields } from './tracing/tracer.js';

export type { Logger } from 'pino';

const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'DISCORD_TOKEN',
  'KEY_ENCRYPTION_SECRET',
  '*.DISCORD_TOKEN',
  '*.KEY_ENCRYPTION_SECRET',
];

interface CreateLoggerOptions {
  name: string;
  level?: string;
  /** Pretty, human-readable lines (development). Defaults to on when stdout is a terminal. */
  pretty?: boolean;
  /** Write somewhere else than stdout (tests capture lines this way). */
  destination?: pino.DestinationStream;
}

type SerializedError = Record<string, unknown>;

/**
 * pino's error serializer keeps every own property: discord.js' DiscordAPIError brings its `url`
 * (with the interaction token) and `requestBody` (whatever we sent). Tokens are cut out of every
 * string, request bodies are dropped, down the `cause` chain.
 */
function serializeError(error: unknown): unknown {
  const serialized = stdSerializers.err(error as Error) as unknown;
  return scrub(serialized, 0);
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactTokens(value);
  if (depth > 5 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: SerializedError = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'requestBody' || key === 'rawBody') continue;
    out[key] = scrub(v, depth + 1);
  }
  return out;
}

/** What every feedbot logger is made with (tests build theirs from it too). */
export function baseLoggerOptions(opts: { name?: string; level?: string } = {}): LoggerOptions {
  return {
    ...(opts.name ? { name: opts.name } : {}),
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    // Inside a span (tracing on), each line carries trace_id and span_id: a trace and its log lines join.
    mixin: traceLogFields,
  };
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const options = baseLoggerOptions(opts);
  if (opts.destination) return pino(options, opts.destination);
  const pretty = opts.pretty ?? (process.stdout.isTTY === true && process.env.NODE_ENV !== 'production');
  if (pretty && hasPrettyPrinter()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(options);
}

/** pino-pretty is a development tool: a production install logs JSON even on a terminal. */
function hasPrettyPrinter(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/** A logger that drops everything, for tests and tools that do not want output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
