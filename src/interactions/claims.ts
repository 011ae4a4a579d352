/**
 * One answer per interaction, however many processes receive it. Discord sends every event of a
 * shard to every gateway session holding that shard: during a deploy that starts the new version
 * before stopping the old one, or when a second copy runs by mistake, both processes receive each
 * interaction. Before its first callback and its first feed API call, a process claims the
 * interaction id in the store the processes share (src/leases/); the one that loses does nothing.
 *
 * The store down, or slower than CLAIM_TIMEOUT_MS: the process answers alone rather than leave
 * the user without an answer. Two processes in that state both answer; Discord refuses the second
 * callback (40060) and the feed API may see a command twice. Counted by outcome
 * (feedbot_interaction_claims_total{outcome="unavailable"}) and logged once per outage.
 *
 * HTTP interactions need none of this: each request reaches one replica, and a replayed one is
 * refused by the replay guard (src/http/replay.ts).
 */
import type { SlotLease } from '../leases/lease.js';
import type { Logger } from '../logger.js';
import { within } from '../within.js';

/** An interaction token lives 15 minutes: after that no process can answer it anyway. */
export const CLAIM_TTL_MS = 15 * 60_000;
/**
 * The claim is spent out of Discord's 3-second deadline: past this the process answers alone. The
 * responder's deferral is timed from the interaction's creation, so even a claim this slow leaves
 * it time to acknowledge; a SQLite file that ten processes write to can take hundreds of ms on a
 * loaded machine (its busy handler sleeps between tries), which a shorter bound turned into doubles.
 */
const CLAIM_TIMEOUT_MS = 1_000;

/** `won`: this process answers; `lost`: another one does; `unavailable`: the store did not answer, this process answers. */
export const CLAIM_OUTCOMES = ['won', 'lost', 'unavailable'] as const;
type ClaimOutcome = (typeof CLAIM_OUTCOMES)[number];

export interface ClaimRecord {
  interactionId: string;
  outcome: ClaimOutcome;
  /** How long the claim took, in ms. */
  durationMs: number;
}

export interface InteractionClaims {
  /** Where the claims live: 'sqlite', 'postgres', 'redis' or 'memory'. */
  readonly kind: string;
  claim(interactionId: string): Promise<ClaimOutcome>;
}

export function leaseClaims(lease: SlotLease, opts: { logger: Logger; timeoutMs?: number }): InteractionClaims {
  const timeoutMs = opts.timeoutMs ?? CLAIM_TIMEOUT_MS;
  let down = false;
  const timedOut = new Error(`no answer within ${timeoutMs} ms`);
  return {
    kind: lease.kind,
    async claim(interactionId) {
      try {
        const won = await within(lease.claim(`interaction:${interactionId}`, CLAIM_TTL_MS), timeoutMs, () => {
          throw timedOut;
        });
        if (down) {
          down = false;
          opts.logger.info({ store: lease.kind }, 'interaction claims: the store answers again');
        }
        return won ? 'won' : 'lost';
      } catch (error) {
        if (!down) {
          down = true;
          // A code or a class name, never a driver's message: those can quote a connection URL.
          const cause = (error as { code?: unknown } | undefined)?.code ?? (error === timedOut ? 'timeout' : error instanceof Error ? error.name : 'error');
          opts.logger.warn({ store: lease.kind, cause }, 'interaction claims: the store does not answer; each process answers alone until it does');
        }
        return 'unavailable';
      }
    },
  };
}
