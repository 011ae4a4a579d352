/** Waiting on the emulator's event bus for a condition, with a deadline. */
import type { EmulatorEventMap, EmulatorEvents } from './events.js';

/**
 * Resolves with `check()`'s first defined value: checked at once (no argument), then on every
 * `event` (with the event's arguments). Rejects with `timeout()` after `timeoutMs`.
 */
export function waitUntil<K extends keyof EmulatorEventMap, T>(
  events: EmulatorEvents,
  event: K,
  check: (...args: EmulatorEventMap[K] | []) => T | undefined,
  timeoutMs: number,
  timeout: () => Error,
): Promise<T> {
  const now = check();
  if (now !== undefined) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const listener = (...args: EmulatorEventMap[K]) => {
      const value = check(...args);
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(timeout());
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      events.off(event, listener as never);
    };
    events.on(event, listener as never);
  });
}
