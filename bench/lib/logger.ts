/**
 * The bot logs as in production (JSON lines at info, one per interaction). In a benchmark the
 * lines go to a sink that keeps only what a scenario asks for, so writing them costs what a
 * synchronous stdout write would, and nothing is printed over the results table.
 */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

export interface CapturingLogger {
  logger: Logger;
  /** Raw lines whose text contains one of `keep` (empty unless asked). */
  lines: string[];
  /** Parsed kept lines. */
  entries(): Record<string, unknown>[];
}

export function benchLogger(opts: { level?: string; keep?: string[] } = {}): CapturingLogger {
  const lines: string[] = [];
  const keep = opts.keep ?? [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      if (keep.length > 0) {
        const line = chunk.toString();
        if (keep.some((k) => line.includes(k))) lines.push(line);
      }
      callback();
    },
  });
  const logger = createLogger({ name: 'feedbot', level: opts.level ?? 'info', destination: sink });
  return { logger, lines, entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
