/**
 * Discord's two limits on starting gateway sessions (a RESUME counts against neither):
 *
 * - max_concurrency: shards identify in rate-limit buckets, `rate_limit_key = shard_id %
 *   max_concurrency`, at most one IDENTIFY per bucket per identify window (5 s on Discord);
 * - the session start limit: `total` IDENTIFYs per period (1,000 a day), whose state
 *   `GET /gateway/bot` reports as `session_start_limit`.
 */
import type { APIGatewaySessionStartLimit } from 'discord-api-types/v10';

export interface IdentifyLimitOptions {
  maxConcurrency: number;
  /** One IDENTIFY per bucket per this many ms; 0 turns the check off. */
  windowMs: number;
  /** IDENTIFYs allowed per period. */
  total: number;
  periodMs: number;
}

/** Why an IDENTIFY gets no session. */
export type IdentifyRefusal =
  | { reason: 'identify_rate_limited'; bucket: number; retryAfterMs: number }
  | { reason: 'session_start_limit'; resetAfterMs: number };

/** A refusal as the violation record tells it. */
export function refusalMessage(shardId: number, refusal: IdentifyRefusal): string {
  return refusal.reason === 'identify_rate_limited'
    ? `IDENTIFY of shard ${shardId} while its max_concurrency bucket ${refusal.bucket} (shard_id % max_concurrency) may identify again only in ${refusal.retryAfterMs} ms`
    : `IDENTIFY with no session start remaining (session_start_limit; resets in ${refusal.resetAfterMs} ms)`;
}

export interface IdentifyBucket {
  bucket: number;
  /** When the bucket's last IDENTIFY was accepted. */
  lastIdentifyAt: number;
  /** When its next IDENTIFY is accepted. */
  nextIdentifyAt: number;
}

export class IdentifyLimiter {
  private readonly buckets = new Map<number, IdentifyBucket>();
  private used = 0;
  /** The period starts with its first IDENTIFY, so `reset_after` counts down from there. */
  private periodEndsAt: number | null = null;

  constructor(
    private readonly opts: IdentifyLimitOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get windowMs(): number {
    return this.opts.windowMs;
  }

  bucketOf(shardId: number): number {
    return shardId % this.opts.maxConcurrency;
  }

  /**
   * Takes the bucket's slot and one session start for an IDENTIFY of `shardId` that is otherwise
   * valid, or says why it gets none (nothing is taken then).
   */
  take(shardId: number): IdentifyRefusal | undefined {
    const now = this.now();
    this.renew(now);
    if (this.used >= this.opts.total) return { reason: 'session_start_limit', resetAfterMs: this.resetAfter(now) };
    const bucket = this.bucketOf(shardId);
    const state = this.buckets.get(bucket);
    if (state && now < state.nextIdentifyAt) return { reason: 'identify_rate_limited', bucket, retryAfterMs: state.nextIdentifyAt - now };
    this.buckets.set(bucket, { bucket, lastIdentifyAt: now, nextIdentifyAt: now + this.opts.windowMs });
    this.used++;
    this.periodEndsAt ??= now + this.opts.periodMs;
    return undefined;
  }

  /** What `GET /gateway/bot` answers as `session_start_limit`. */
  sessionStartLimit(): APIGatewaySessionStartLimit {
    const now = this.now();
    this.renew(now);
    return { total: this.opts.total, remaining: this.opts.total - this.used, reset_after: this.resetAfter(now), max_concurrency: this.opts.maxConcurrency };
  }

  /** Buckets that have identified, by bucket. */
  bucketStates(): IdentifyBucket[] {
    return [...this.buckets.values()].sort((a, b) => a.bucket - b.bucket);
  }

  private renew(now: number): void {
    if (this.periodEndsAt !== null && now >= this.periodEndsAt) {
      this.used = 0;
      this.periodEndsAt = null;
    }
  }

  private resetAfter(now: number): number {
    return this.periodEndsAt === null ? this.opts.periodMs : this.periodEndsAt - now;
  }
}
