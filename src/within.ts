/**
 * A time bound on work that may never settle: a store that does not answer, a drain, an exporter's
 * flush. Imports nothing, so any part of src/ may use it.
 */

/**
 * `work`'s outcome if it settles within `ms`; else `onLate()`'s (undefined without one). A throwing
 * `onLate` rejects with what it threw (an Error as is, anything else wrapped in one). The timer is cleared as soon as either side settles. `work` is not cancelled:
 * it may still settle later, unobserved (its late rejection is handled, never unhandled).
 */
export function within<T>(work: Promise<T>, ms: number): Promise<T | undefined>;
export function within<T, L>(work: Promise<T>, ms: number, onLate: () => L): Promise<T | L>;
export function within<T, L>(work: Promise<T>, ms: number, onLate?: () => L): Promise<T | L | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<L | undefined>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onLate?.());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    }, Math.max(0, ms));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
