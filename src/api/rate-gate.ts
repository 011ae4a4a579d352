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
 * A 429 is authoritative until the reset it gives, whatever the gate believed: nothing is sent
 * for the key before it, even when it is earlier than the end of a window seen before (a token
 * bucket or a sliding window names the moment the next unit frees up, a restarted server has a
 * new window, other clients of the key spend budget we never saw). Answers to requests sent
 * before that 429 arrived raced it: they tell the budget as it was, so they cannot reopen the
 * gate. When the reset has passed, a single request probes the budget before the others go: the
 * server just proved our picture wrong, and "a new window starts full" may not hold for it. The
 * refusal outlives `forget` and eviction: dropping what we learnt does not end it.
 *
 * Clocks: the reset is a time on the server's clock, read on ours, and we assume both in step
 * (NTP, well under a second). A server running ahead only makes us wait a little longer; one
 * running behind makes its reset look earlier by the skew, which we cannot measure (we do not
 * read `Date`). A Retry-After, relative and so immune to skew, wins when it ends later. A 429
 * whose reset has already passed here (a slow answer, or such a server) holds nothing, but it
 * still puts the key back to probing one request at a time: a lagging server sees a trickle of
 * single requests until its window really ends, never a burst.
 *
 * Keys are identified by a hash (the caller's business); the gate never sees the key itself.
 * Memory is bounded: idle keys are evicted oldest-first beyond `maxKeys`.
 *
 * This class keeps the state in this process (one replica, the default); with REDIS_URL the
 * replicas share it instead (src/replicas/redis-rate-gate.ts: the same rules, as Lua scripts).
 */
import {
  FIRST_USE_BURST,
  MAX_NEW_WINDOW_BURST,
  SAME_WINDOW_MS,
  resetFor429,
  unknownBudget,
  type GateDecision,
  type GatePermit,
  type GateSnapshot,
  type RateGate,
} from './gate.js';
import { parseRemaining, parseReset, type HeaderBag } from './rate-headers.js';

interface KeyState {
  /** Last `Remaining` the server reported for the current window (min seen within it). */
  remaining: number | null;
  resetAtMs: number | null;
  /** Requests sent and not yet answered (reserved budget). */
  inFlight: number;
  blind: boolean;
  /** The largest budget seen at the start of a window (Remaining + 1); 0 until one is seen. */
  limitSeen: number;
  /** The latest reset of the 429s received: nothing is sent before it. Null when none pending. */
  refusedUntilMs: number | null;
  /** 429s received: a request sent when this was lower raced the latest one. */
  refusals: number;
  /** Set by a 429 until a response teaches a budget: the unknown state probes with one request. */
  probeOne: boolean;
  waiters: Array<() => void>;
}

interface RateGateOptions {
  now: () => number;
  maxKeys?: number;
}

export class MemoryRateGate implements RateGate {
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
      if (s.refusedUntilMs !== null) return { ok: false, resetAt: new Date(s.refusedUntilMs) };
      if (s.remaining === null || s.resetAtMs === null) {
        if (s.blind || s.inFlight < burstFor(s)) return { ok: true, permit: this.reserve(s) };
        await new Promise<void>((resolve) => s.waiters.push(resolve));
        continue;
      }
      if (s.remaining - s.inFlight > 0) return { ok: true, permit: this.reserve(s) };
      return { ok: false, resetAt: new Date(s.resetAtMs) };
    }
  }

  snapshot(keyHash: string): Promise<GateSnapshot> {
    const s = this.states.get(keyHash);
    return Promise.resolve(s ? this.view(s) : unknownBudget());
  }

  resetFor429(headers: HeaderBag): Date {
    return resetFor429(headers, this.now());
  }

  /** The end of a 429's refusal still pending for the key, if any (what a shared gate mirrors here). */
  refusedUntil(keyHash: string): Date | null {
    const s = this.states.get(keyHash);
    if (!s) return null;
    this.expire(s);
    return s.refusedUntilMs === null ? null : new Date(s.refusedUntilMs);
  }

  /** Records a 429 answered to a request this gate did not admit (a shared gate's, Redis being down). */
  noteRefusal(keyHash: string, headers: HeaderBag): GateSnapshot {
    const s = this.state(keyHash);
    this.refuse(s, headers);
    this.wake(s);
    return this.view(s);
  }

  forget(keyHash: string): Promise<void> {
    const s = this.states.get(keyHash);
    if (!s) return Promise.resolve();
    this.expire(s);
    s.remaining = s.refusedUntilMs === null ? null : 0;
    s.resetAtMs = s.refusedUntilMs;
    s.blind = false;
    s.limitSeen = 0;
    if (s.inFlight === 0 && s.refusedUntilMs === null) this.states.delete(keyHash);
    // Whoever waited re-evaluates against what is left.
    this.wake(s);
    return Promise.resolve();
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
    s = newState();
    this.states.set(keyHash, s);
    this.evict();
    return s;
  }

  private evict(): void {
    if (this.states.size <= this.maxKeys) return;
    for (const [k, s] of this.states) {
      if (this.states.size <= this.maxKeys) break;
      this.expire(s);
      // A pending 429 is kept: it lasts at most MAX_RESET_AHEAD_MS, and forgetting it would send
      // into a window the server declared spent.
      if (s.inFlight === 0 && s.waiters.length === 0 && s.refusedUntilMs === null) this.states.delete(k);
    }
  }

  private expire(s: KeyState): void {
    const now = this.now();
    if (s.refusedUntilMs !== null && now >= s.refusedUntilMs) s.refusedUntilMs = null;
    if (s.resetAtMs !== null && now >= s.resetAtMs) {
      s.remaining = null;
      s.resetAtMs = null;
      s.blind = false;
    }
  }

  /** Unreserved budget and reset time, or nulls when unknown. */
  private view(s: KeyState): GateSnapshot {
    this.expire(s);
    if (s.remaining === null || s.resetAtMs === null) return unknownBudget();
    return { remaining: Math.max(0, s.remaining - s.inFlight), resetAt: new Date(s.resetAtMs) };
  }

  private reserve(s: KeyState): GatePermit {
    s.inFlight++;
    const refusalsBefore = s.refusals;
    let released: Promise<GateSnapshot> | undefined;
    return {
      release: (headers, status) => {
        if (released) return released;
        s.inFlight--;
        if (status === 429) this.refuse(s, headers ?? {});
        else if (s.refusals === refusalsBefore) {
          const learnt = headers ? this.learn(s, headers) : false;
          if (!learnt && (s.remaining === null || s.resetAtMs === null)) s.blind = true;
        }
        // Otherwise it raced a 429 that arrived first: what it says is older than that refusal.
        this.wake(s);
        released = Promise.resolve(this.view(s));
        return released;
      },
    };
  }

  private refuse(s: KeyState, headers: HeaderBag): void {
    this.refuseUntil(s, Math.max(resetFor429(headers, this.now()).getTime(), this.now()));
  }

  private refuseUntil(s: KeyState, untilMs: number): void {
    const until = Math.max(untilMs, s.refusedUntilMs ?? untilMs);
    s.refusedUntilMs = until;
    // The window we believed in is disproved; what follows the refusal is unknown.
    s.remaining = 0;
    s.resetAtMs = until;
    s.refusals++;
    s.probeOne = true;
    s.blind = false;
  }

  /** A budget from a response other than 429; false when its headers tell nothing usable. */
  private learn(s: KeyState, headers: HeaderBag): boolean {
    const now = this.now();
    const remaining = parseRemaining(headers);
    const reset = parseReset(headers, now);
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
    s.limitSeen = Math.max(s.limitSeen, remaining + 1);
    s.blind = false;
    s.probeOne = false;
    return true;
  }

  private wake(s: KeyState): void {
    const waiters = s.waiters.splice(0);
    for (const w of waiters) w();
  }
}

function newState(): KeyState {
  return { remaining: null, resetAtMs: null, inFlight: 0, blind: false, limitSeen: 0, refusedUntilMs: null, refusals: 0, probeOne: false, waiters: [] };
}

/** Requests let out together while the budget is unknown. */
function burstFor(s: KeyState): number {
  if (s.probeOne) return 1;
  return s.limitSeen > 0 ? Math.max(1, Math.min(MAX_NEW_WINDOW_BURST, Math.floor(s.limitSeen / 4))) : FIRST_USE_BURST;
}
