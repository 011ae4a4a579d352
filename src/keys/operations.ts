/**
 * What the key store reports after each operation, through one hook (`KeyStore.onOperation`):
 * which operation, how it ended, how long it took. Metrics subscribe; the store stays free of
 * them. Reports never carry a guild id, a key or a secret.
 */
import { Observers, type Listener } from '../observers.js';
import { KEY_STORE_ERROR_CODES, KeyStoreError } from './errors.js';
import { NOOP_SPAN, tracer, type TraceSpan } from '../tracing/tracer.js';

export const KEY_STORE_OPS = ['get', 'set', 'delete', 'audit', 'ping'] as const;
type KeyStoreOp = (typeof KEY_STORE_OPS)[number];
/** Every outcome an operation is reported with: `ok`, an error code, or `error`. */
export const KEY_STORE_OUTCOMES = ['ok', ...KEY_STORE_ERROR_CODES, 'error'] as const;

export interface KeyStoreOperation {
  op: KeyStoreOp;
  /** `ok`, the KeyStoreError code, or `error` for anything else thrown. */
  outcome: (typeof KEY_STORE_OUTCOMES)[number];
  durationMs: number;
}

export type KeyStoreOperationListener = Listener<KeyStoreOperation>;

export const operationObservers = (): Observers<KeyStoreOperation> => new Observers<KeyStoreOperation>('key store');

/**
 * Runs `run` and reports how it ended; its result or error passes through untouched. Without
 * listeners, `run`'s own promise is handed back: wrapping it in another async function would cost
 * two microtask turns per key-store call. With tracing on, the operation is a span.
 */
export function observed<T>(observers: Observers<KeyStoreOperation>, op: KeyStoreOp, run: (span: TraceSpan) => Promise<T>): Promise<T> {
  const t = tracer();
  if (t.enabled) return t.inSpan(`key_store ${op}`, { kind: 'client', attributes: { 'feedbot.key_store.op': op } }, (span) => reportedOrNot(observers, op, () => run(span)));
  return reportedOrNot(observers, op, () => run(NOOP_SPAN));
}

function reportedOrNot<T>(observers: Observers<KeyStoreOperation>, op: KeyStoreOp, run: () => Promise<T>): Promise<T> {
  return observers.size === 0 ? run() : reported(observers, op, run);
}

async function reported<T>(observers: Observers<KeyStoreOperation>, op: KeyStoreOp, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome: KeyStoreOperation['outcome'] = 'ok';
  try {
    return await run();
  } catch (error) {
    outcome = error instanceof KeyStoreError ? error.code : 'error';
    throw error;
  } finally {
    observers.emit({ op, outcome, durationMs: performance.now() - started });
  }
}
