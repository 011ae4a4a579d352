/**
 * A signed request can be captured and sent again: its signature stays valid. Two guards:
 * the timestamp must be recent (MAX_CLOCK_SKEW_S either way), and an interaction id is accepted
 * once. Ids are remembered for as long as a timestamp passes the first guard, so together they
 * refuse every replay. With Redis (REDIS_URL) the ids are shared by every replica.
 */

/** How far the signed timestamp may be from this machine's clock, in seconds. */
const MAX_CLOCK_SKEW_S = 300;
/** An id is remembered while a request carrying it could still pass the timestamp check. */
export const SEEN_TTL_MS = 2 * MAX_CLOCK_SKEW_S * 1000;

export interface SeenInteractions {
  /** True the first time an id is offered within SEEN_TTL_MS; false for a replay. */
  firstTime(interactionId: string): Promise<boolean>;
}

/** Whether the signed timestamp (unix seconds) is close enough to `nowMs`. */
export function isFreshTimestamp(timestamp: string, nowMs: number): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= MAX_CLOCK_SKEW_S;
}

/** One process's memory: ids with their expiry, oldest first, bounded. */
export class MemorySeenInteractions implements SeenInteractions {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 200_000,
  ) {}

  async firstTime(interactionId: string): Promise<boolean> {
    const now = this.now();
    for (const [id, expiresAt] of this.seen) {
      if (expiresAt > now && this.seen.size < this.maxEntries) break;
      this.seen.delete(id);
    }
    if (this.seen.has(interactionId)) return false;
    this.seen.set(interactionId, now + SEEN_TTL_MS);
    return true;
  }
}
