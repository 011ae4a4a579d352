/** The emulator logs with pino; bot tokens it receives are redacted wherever they are logged. */
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, redact: { paths: ['token', '*.token', 'authorization', '*.authorization'], censor: '[redacted]' } });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
