/**
 * One pino logger factory for the bot, the sandbox and the emulator.
 *
 * Redaction is the last line of defence: code must not log secrets in the first place, but if a
 * key, token or secret ends up in a logged object under one of these paths, pino replaces it.
 */
import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

export const REDACT_PATHS = [
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

export interface CreateLoggerOptions {
  name: string;
  level?: string;
  /** Pretty, human-readable lines (development). Defaults to on when stdout is a terminal. */
  pretty?: boolean;
  /** Write somewhere else than stdout (tests capture lines this way). */
  destination?: pino.DestinationStream;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
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
