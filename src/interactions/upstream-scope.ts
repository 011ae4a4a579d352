/**
 * What the feed API answered during one interaction, for that interaction's log line, learnt
 * from the client's response events instead of being handed back by each handler.
 *
 * Each interaction runs inside its own AsyncLocalStorage scope; one listener, registered once
 * per router, writes every response into whichever scope is current when it arrives. Requests
 * made by the interaction's handler (and everything it awaits) land in its scope and no other.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResponseListener } from '../api/response-events.js';

interface UpstreamRecord {
  /** The last HTTP status the API answered; null while no request has reached it. */
  lastStatus: number | null;
}

interface UpstreamScopes {
  /** Runs `fn` in a fresh scope; responses to requests made within it are recorded there. */
  run<T>(fn: () => T): T;
  /** The last status the API answered in the current scope; null if none (or outside any scope). */
  lastStatus(): number | null;
}

export function trackUpstream(source: { onResponse(listener: ResponseListener): () => void }): UpstreamScopes {
  const storage = new AsyncLocalStorage<UpstreamRecord>();
  source.onResponse((event) => {
    const record = storage.getStore();
    // A refusal by the local gate, a time-out or a failed connection is no status of the API's.
    if (record && event.kind === 'status') record.lastStatus = event.status;
  });
  return {
    run: (fn) => storage.run({ lastStatus: null }, fn),
    lastStatus: () => storage.getStore()?.lastStatus ?? null,
  };
}
