/**
 * The lease (src/leases/) as the sweeps and the digest ask it. A store that does not answer (HTTP
 * replicas' Redis down: each claim rejects at once, ClientOfflineError or "Redis is not
 * connected", or after its 1 s time-out) is an outage of the whole store, not of one server's
 * sweep: it is logged once when it starts and once when the store answers again, and meanwhile
 * each sweep and digest is skipped without a line. Every claim is still sent (it costs nothing
 * while the client is disconnected), so the first one that is answered ends the outage: the
 * sweeps resume by themselves at their next slot, and a due digest at the next tick.
 */
import type { SlotLease } from '../../leases/lease.js';
import type { Logger } from '../../logger.js';

/** True: this process does the work; false: another one does; 'unavailable': the store did not answer. */
export type LeaseAnswer = boolean | 'unavailable';

interface WatchedLease {
  claim(name: string, ttlMs: number): Promise<LeaseAnswer>;
}

export function watchLease(lease: SlotLease, logger: Logger): WatchedLease {
  let down = false;
  return {
    async claim(name, ttlMs) {
      let mine: boolean;
      try {
        mine = await lease.claim(name, ttlMs);
      } catch (error) {
        if (!down) {
          down = true;
          // A code or a class name, never a driver's message (it can quote a connection URL), nor a stack.
          const cause = (error as { code?: unknown } | undefined)?.code ?? (error instanceof Error ? error.name : 'error');
          logger.warn({ store: lease.kind, cause }, 'health sweeps: the lease store does not answer; sweeps and digests are skipped until it does');
        }
        return 'unavailable';
      }
      if (down) {
        down = false;
        logger.info({ store: lease.kind }, 'health sweeps: the lease store answers again; sweeps and digests resume');
      }
      return mine;
    },
  };
}
