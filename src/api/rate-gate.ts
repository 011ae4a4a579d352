/**
 * Per-key request budget, learnt from the rate-limit headers of every response.
 *
 * Why reserve: the server's `Remaining` only counts requests it has seen. If 500 commands arrive
 * together with 3 requests left, sending them all would earn 497 upstream 429s (and the key's
 * owner a noisy dashboard). So each sent request reserves one unit until its response arrives;
 * a request that finds no unreserved unit is refused locally, at once, with the known reset time.
 *
 * Unknown state, first use of a key: a few requests (FIRST_USE_BURST) go out together to learn
 * the budget, and any others wait for the first answer (at most one attempt's time-out), then are
 * admitted against what it taught. A few, not one: members of a server often act together, and
 * with a slow API a single probe doubles everyone's wait; not all: after a restart in the middle
 * of a nearly spent window, the cost is bounded to those few upstream 429s. Once a window we
 * watched has passed, the next one starts full (the limit is per window), so a larger burst (a
 * quarter of the budget we saw, at most 10) goes out at once. If the answer carries no usable headers (or
 * never arrives: connection failure), the key is "blind" and requests pass ungated until some
 * response teaches a budget — a server without headers must not serialise every command.
 *
 * Keys are identified by a hash (the caller's business); the gate never sees the key itself.
 * Memory is bounded: idle keys are evicted oldest-first beyond `maxKeys`.
 */
import { RATE_LIMIT_WINDOW_MS } from '@feedbot/feed-api-contract';
import { parseRemaining, parseReset, parseRetryAfter, type HeaderBag } from './rate-headers.js';

interface KeyState {
  /** Last `Remaining` the server reported for the current window (min seen within it). */
  remaining: number | null;
  resetAtMs: number | null;
  /** Requests sent and not yet answered (reserved budget). */
  inFlight: number;
  blind: boolean;
  /** The largest budget seen at the start of a window (Remaining + 1); 0 until one is seen. */
  limitSeen: number;
  waiters: Array<() => void>;
}

export type GateDecision = { ok: true; permit: GatePermit } | { ok: false; resetAt: Date };

export interface GatePermit {
  /** Call once per sent request, with the response headers (none when the request failed). */
  release(headers?: HeaderBag, status?: number): void;
}

export interface RateGateOptions {
  now: () => number;
  maxKeys?: number;
}

/** Two resets closer than this are the same window (the header has second resolution). */
const SAME_WINDOW_MS = 1000;
/** Requests let through together into a new window of a key whose budget we have seen. */
const MAX_NEW_WINDOW_BURST = 10;
/** Requests let through together before anything is known of a key's budget. */
export const FIRST_USE_BURST = 4;

export class RateGate {
  private readonly states = new Map<string, KeyState>();
  private readonly now: () => number;
  private readonly maxKeys: number;

  constructor(opts: RateGateOptions) {
    this.now = opts.now;
    this.maxKeys = opts.maxKeys ?? 10_000;
  }

  /** Resolves with a permit to send one request, or a refusal; may wait while a probe is out. */
  async acquire(keyHash: string): Promise<GateDecision> {
    for (;;) {
      const s = this.state(keyHash);
      this.expire(s);
      if (s.remaining === null || s.resetAtMs === null) {
        const burst = s.limitSeen > 0 ? Math.max(1, Math.min(MAX_NEW_WINDOW_BURST, Math.floor(s.limitSeen / 4))) : FIRST_USE_BURST;
        if (s.blind || s.inFlight < burst) return { ok: true, permit: this.reserve(s) };
        await new Promise<void>((resolve) => s.waiters.push(resolve));
        continue;
      }
      if (s.remaining - s.inFlight > 0) return { ok: true, permit: this.reserve(s) };
      return { ok: false, resetAt: new Date(s.resetAtMs) };
    }
  }

  /** Unreserved budget and reset time, or nulls when unknown. */
  snapshot(keyHash: string): { remaining: number | null; resetAt: Date | null } {
    const s = this.states.get(keyHash);
    if (!s) return { remaining: null, resetAt: null };
    this.expire(s);
    if (s.remaining === null || s.resetAtMs === null) return { remaining: null, resetAt: null };
    return { remaining: Math.max(0, s.remaining - s.inFlight), resetAt: new Date(s.resetAtMs) };
  }

  /** The reset time a 429 response implies (header, else Retry-After, else a full window). */
  resetFor429(headers: HeaderBag): Date {
    const now = this.now();
    return new Date(parseReset(headers, now) ?? parseRetryAfter(headers, now) ?? now + RATE_LIMIT_WINDOW_MS);
  }

  forget(keyHash: string): void {
    const s = this.states.get(keyHash);
    if (!s) return;
    this.states.delete(keyHash);
    // Whoever waited on the old state re-evaluates against a fresh one.
    this.wake(s);
  }

  get size(): number {
    return this.states.size;
  }

  private state(keyHash: string): KeyState {
    let s = this.states.get(keyHash);
    if (s) {
      // Re-insert: Map order doubles as least-recently-used order for eviction.
      this.states.delete(keyHash);
      this.states.set(keyHash, s);
      return s;
    }
    s = { remaining: null, resetAtMs: null, inFlight: 0, blind: false, limitSeen: 0, waiters: [] };
    this.states.set(keyHash, s);
    this.evict();
    return s;
  }

  private evict(): void {
    if (this.states.size <= this.maxKeys) return;
    for (const [k, s] of this.states) {
      if (this.states.size <= this.maxKeys) break;
      if (s.inFlight === 0 && s.waiters.length === 0) this.states.delete(k);
    }
  }

  private expire(s: KeyState): void {
    if (s.resetAtMs !== null && this.now() >= s.resetAtMs) {
      s.remaining = null;
      s.resetAtMs = null;
      s.blind = false;
    }
  }

  private reserve(s: KeyState): GatePermit {
    s.inFlight++;
    let released = false;
    return {
      release: (headers, status) => {
        if (released) return;
        released = true;
        s.inFlight--;
        const learnt = headers ? this.learn(s, headers, status) : false;
        if (!learnt && (s.remaining === null || s.resetAtMs === null)) s.blind = true;
        this.wake(s);
      },
    };
  }

  private learn(s: KeyState, headers: HeaderBag, status?: number): boolean {
    const now = this.now();
    let remaining = parseRemaining(headers);
    let reset = parseReset(headers, now);
    if (status === 429) {
      remaining = 0;
      reset ??= this.resetFor429(headers).getTime();
    }
    // Both are needed: a budget without an end (or an end in the past) tells nothing usable.
    if (remaining === null || reset === null || reset <= now) return false;
    if (s.remaining === null || s.resetAtMs === null || reset >= s.resetAtMs + SAME_WINDOW_MS) {
      s.remaining = remaining;
      s.resetAtMs = reset;
    } else if (reset > s.resetAtMs - SAME_WINDOW_MS) {
      // Same window: responses may arrive out of order; the budget only ever shrinks within it.
      s.remaining = Math.min(s.remaining, remaining);
      s.resetAtMs = Math.max(s.resetAtMs, reset);
    }
    // Older window (a late answer): ignored.
    if (status !== 429) s.limitSeen = Math.max(s.limitSeen, remaining + 1);
    s.blind = false;
    return true;
  }

  private wake(s: KeyState): void {
    const waiters = s.waiters.splice(0);
    for (const w of waiters) w();
  }
}
