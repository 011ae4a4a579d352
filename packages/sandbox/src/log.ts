/**
 * The sandbox logs with pino. Requests carry API keys in their Authorization header: whatever a
 * caller logs under these paths is replaced, as the bot does with its own secrets.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

const REDACT = ['authorization', '*.authorization', 'apiKey', '*.apiKey', 'key', '*.key', '*.headers.authorization'];

export function createLogger(opts: { name: string; level?: string; destination?: DestinationStream }): Logger {
  const options = { name: opts.name, level: opts.level ?? 'info', redact: { paths: REDACT, censor: '[redacted]' } };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
