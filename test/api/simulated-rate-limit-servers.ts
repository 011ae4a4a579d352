/**
 * Rate-limited feed API servers, simulated for property tests of the client's rate gate: pure,
 * deterministic, driven by an injected clock (no timers). Each one limits a key to 100 requests
 * per minute its own way and answers with the status and the `X-RateLimit-*` headers a real
 * server of its kind would send:
 *
 *  - fixed window: 100 per window of 60 s, opened by the first request (or aligned on the
 *    minute); Reset is the window's end — the one reading the spec has in mind.
 *  - sliding window: 100 within any 60 s (a log of accepted requests). The budget never comes
 *    back all at once, so Reset is either when it is whole again (newest + 60 s: the only
 *    reading under which "Remaining until Reset" is a promise) or when the next unit frees up
 *    (oldest + 60 s, what many implementations send).
 *  - token bucket: capacity 100, refilled 100 per 60 s (one token per 600 ms). Reset is when
 *    the bucket is full again, or when the next token arrives.
 *
 * A 429's Reset is chosen the same two ways: "next" is the earliest moment a request would
 * succeed (what Retry-After means), "full" when the whole budget is back. Both are honest; the
 * first is earlier than anything a 200 of the same server said about a "full" reset, which is
 * the case a gate must not ignore.
 *
 * Any server can restart (it forgets its counts: a fresh window, an empty log, a full bucket)
 * and can receive other clients' traffic on the same key (the dashboard, a second bot process):
 * both make the gate's picture of the budget wrong, which is when 429s come.
 *
 * The property under test is recorded here: a 429 "declares the window spent" until the reset
 * it carries, from the moment the client has received it (a request already in flight cannot
 * know). Every request of the client is logged with whether it arrived inside such a declared
 * window. Declarations outlive a restart: the client cannot see restarts, and a 429 is
 * authoritative until its reset.
 *
 * Times on the wire are Unix seconds, rounded up (a reset rounded down would promise a budget
 * before it exists). The server's clock may run ahead of the client's by `skewMs` (>= 0).
 */
import { RATE_LIMIT_PER_MINUTE, RATE_LIMIT_WINDOW_MS } from '@feedbot/feed-api-contract';

export type ServerKind = 'fixed' | 'sliding' | 'bucket';
/** Which moment a Reset header names: the budget whole again, or the next unit of it free. */
export type ResetReading = 'full' | 'next';

export interface ServerConfig {
  kind: ServerKind;
  /** Fixed window only: windows on minute boundaries rather than opened by a request. */
  aligned: boolean;
  /** Sliding window and token bucket: what Reset means on a 200. */
  resetOn200: ResetReading;
  /** Sliding window and token bucket: what Reset means on a 429. */
  resetOn429: ResetReading;
  /** How far the server's clock runs ahead of the client's. */
  skewMs: number;
}

export interface ServerReply {
  status: 200 | 429;
  headers: Record<string, string>;
  /** The reset the headers declare, epoch ms (a whole second) of the server's clock. */
  resetMs: number;
}

export interface ReceivedRequest {
  /** Server clock. */
  atMs: number;
  status: 200 | 429;
  /** It arrived before the reset of a 429 the client had already received. */
  intoSpentWindow: boolean;
}

const LIMIT = RATE_LIMIT_PER_MINUTE;
const WINDOW_MS = RATE_LIMIT_WINDOW_MS;

interface Verdict {
  allowed: boolean;
  /** Remaining after this request. */
  remaining: number;
  /** The moment the budget is whole again, and the moment the next unit is free (ms). */
  fullAtMs: number;
  nextAtMs: number;
}

interface Limiter {
  hit(nowMs: number): Verdict;
}

class FixedWindow implements Limiter {
  private start = -Infinity;
  private count = 0;
  constructor(private readonly aligned: boolean) {}

  hit(now: number): Verdict {
    if (now >= this.start + WINDOW_MS) {
      this.start = this.aligned ? Math.floor(now / WINDOW_MS) * WINDOW_MS : now;
      this.count = 0;
    }
    const allowed = this.count < LIMIT;
    if (allowed) this.count++;
    const end = this.start + WINDOW_MS;
    return { allowed, remaining: LIMIT - this.count, fullAtMs: end, nextAtMs: end };
  }
}

class SlidingWindow implements Limiter {
  /** Accepted requests within the last window, oldest first. */
  private readonly log: number[] = [];

  hit(now: number): Verdict {
    while (this.log.length > 0 && this.log[0]! <= now - WINDOW_MS) this.log.shift();
    const allowed = this.log.length < LIMIT;
    if (allowed) this.log.push(now);
    const oldest = this.log[0] ?? now - WINDOW_MS;
    const newest = this.log.at(-1) ?? now - WINDOW_MS;
    return { allowed, remaining: LIMIT - this.log.length, fullAtMs: newest + WINDOW_MS, nextAtMs: oldest + WINDOW_MS };
  }
}

/** Exact arithmetic: the level is kept in milliseconds of refill (one token = 600 ms). */
class TokenBucket implements Limiter {
  private static readonly TOKEN_MS = WINDOW_MS / LIMIT;
  private level = WINDOW_MS;
  private last = -Infinity;

  hit(now: number): Verdict {
    const t = TokenBucket.TOKEN_MS;
    this.level = this.last === -Infinity ? WINDOW_MS : Math.min(WINDOW_MS, this.level + (now - this.last));
    this.last = now;
    const allowed = this.level >= t;
    if (allowed) this.level -= t;
    const nextAtMs = this.level >= t ? now : now + (t - this.level);
    return { allowed, remaining: Math.floor(this.level / t), fullAtMs: now + (WINDOW_MS - this.level), nextAtMs };
  }
}

function limiterFor(config: ServerConfig): Limiter {
  if (config.kind === 'fixed') return new FixedWindow(config.aligned);
  return config.kind === 'sliding' ? new SlidingWindow() : new TokenBucket();
}

export class SimulatedServer {
  /** Every request of the client under test, in arrival order. */
  readonly received: ReceivedRequest[] = [];
  /** 429s answered to anyone (the client and others), for the record. */
  answered429 = 0;
  restarts = 0;
  private limiter: Limiter;
  /** The latest reset of a 429 the client has received (server clock). */
  private declaredSpentUntilMs = -Infinity;

  constructor(
    readonly config: ServerConfig,
    private readonly clientClock: () => number,
  ) {
    this.limiter = limiterFor(config);
  }

  /** A request of the client under test arrives. */
  receive(): ServerReply {
    const at = this.now();
    const reply = this.answer(at);
    this.received.push({ atMs: at, status: reply.status, intoSpentWindow: at < this.declaredSpentUntilMs });
    return reply;
  }

  /** `n` requests of other clients of the same key arrive. */
  foreign(n: number): void {
    for (let i = 0; i < n; i++) this.answer(this.now());
  }

  /** The client has received `reply`: a 429 now declares the window spent until its reset. */
  delivered(reply: ServerReply): void {
    if (reply.status === 429) this.declaredSpentUntilMs = Math.max(this.declaredSpentUntilMs, reply.resetMs);
  }

  /** Forgets every count, as a process restart with in-memory counters does. */
  restart(): void {
    this.limiter = limiterFor(this.config);
    this.restarts++;
  }

  intoSpentWindow(): ReceivedRequest[] {
    return this.received.filter((r) => r.intoSpentWindow);
  }

  private now(): number {
    return this.clientClock() + this.config.skewMs;
  }

  private answer(now: number): ServerReply {
    const v = this.limiter.hit(now);
    const reading = v.allowed ? this.config.resetOn200 : this.config.resetOn429;
    const resetSec = Math.ceil((reading === 'full' ? v.fullAtMs : v.nextAtMs) / 1000);
    if (!v.allowed) this.answered429++;
    return {
      status: v.allowed ? 200 : 429,
      headers: { 'x-ratelimit-remaining': String(v.allowed ? v.remaining : 0), 'x-ratelimit-reset': String(resetSec) },
      resetMs: resetSec * 1000,
    };
  }
}
