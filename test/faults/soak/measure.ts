/**
 * Heap after a forced full GC, and the process's active handles by type. `--expose-gc` is set at
 * run time (V8 accepts it once the isolate runs; a fresh context then exposes `gc`), so the soak
 * needs no special flags from vitest's worker.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

function collector(): () => void {
  if (gc) return gc;
  const global = globalThis as { gc?: () => void };
  if (global.gc) return (gc = global.gc);
  setFlagsFromString('--expose-gc');
  const exposed: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  if (typeof exposed !== 'function') throw new Error('cannot force a GC here: run node with --expose-gc');
  return (gc = exposed as () => void);
}

export interface Sample {
  /** Simulated minutes done. */
  minute: number;
  /** Interactions so far. */
  interactions: number;
  heapUsedMB: number;
  /** Active handles and requests by type (process.getActiveResourcesInfo). */
  handles: Record<string, number>;
  handleCount: number;
  realSeconds: number;
}

/** Waits for pending I/O callbacks, collects twice (weak callbacks, then what they freed), samples. */
export async function sample(minute: number, interactions: number, startedAt: number): Promise<Sample> {
  const collect = collector();
  await new Promise((resolve) => setImmediate(resolve));
  collect();
  await new Promise((resolve) => setImmediate(resolve));
  collect();
  const handles: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) handles[type] = (handles[type] ?? 0) + 1;
  // An Immediate runs on the next turn of the loop and cannot pile up: one queued by vitest's
  // worker channel or a logger at the instant of sampling is not a leak (CI saw exactly that).
  // Timers, sockets and pipes stay counted: those are what leaks look like.
  delete handles.Immediate;
  return {
    minute,
    interactions,
    heapUsedMB: Math.round((process.memoryUsage().heapUsed / 1_048_576) * 100) / 100,
    handles,
    handleCount: Object.values(handles).reduce((n, c) => n + c, 0),
    realSeconds: Math.round((performance.now() - startedAt) / 100) / 10,
  };
}
