/** Waiting helpers for open-loop load: arrivals follow a schedule, not the previous answer. */
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Resolves at `startedAt + offsetMs` (performance.now() clock); at once if that has passed. */
export async function until(startedAt: number, offsetMs: number): Promise<void> {
  const wait = startedAt + offsetMs - performance.now();
  if (wait > 1) await sleep(wait);
}

/** Rejects after `ms` with a message naming what did not happen. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
