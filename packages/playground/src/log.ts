/** The demo's own log lines: readable in a terminal (pino-pretty), JSON when piped. */
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(name: string, level = 'info'): Logger {
  if (!process.stdout.isTTY) return pino({ name, level });
  return pino({ name, level, transport: { target: 'pino-pretty', options: { colorize: true } } });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
