/**
 * Fixed-window rate limiter. A window opens at a bucket's first request and lasts `windowMs`;
 * `resetAt` is its end, so `X-RateLimit-Reset` is an absolute Unix time as the spec asks (the
 * ready-made fastify limiter reports a relative reset, hence this module).
 */
import { RATE_LIMIT_REMAINING_HEADER, RATE_LIMIT_RESET_HEADER } from '@feedbot/feed-api-contract';
import type { Clock } from './clock.js';

export interface RateLimitConfig {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
}

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Window end, milliseconds since the epoch. */
  resetAtMs: number;
}

interface Window {
  startMs: number;
  count: number;
}

/** Sweep expired windows once this many buckets exist, so random callers cannot grow memory. */
const SWEEP_THRESHOLD = 10_000;

export class FixedWindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly config: RateLimitConfig,
    private readonly clock: Clock,
  ) {}

  /** Counts one request against `bucket`. `limit` overrides the configured one (per-key limits). */
  hit(bucket: string, limit = this.config.limit): RateLimitState {
    const now = this.clock.now();
    const window = this.current(bucket, now, true);
    window.count += 1;
    return this.describe(window, limit, window.count <= limit);
  }

  /** The state a request would see, without counting one (public, unmetered routes). */
  peek(bucket: string, limit = this.config.limit): RateLimitState {
    const now = this.clock.now();
    const window = this.current(bucket, now, false);
    return this.describe(window, limit, window.count < limit);
  }

  /** Forget every window (tests, and the admin after regenerating all keys). */
  reset(): void {
    this.windows.clear();
  }

  private current(bucket: string, now: number, store: boolean): Window {
    const existing = this.windows.get(bucket);
    if (existing && now < existing.startMs + this.config.windowMs && now >= existing.startMs) return existing;
    const fresh: Window = { startMs: now, count: 0 };
    if (store) {
      if (this.windows.size >= SWEEP_THRESHOLD) this.sweep(now);
      this.windows.set(bucket, fresh);
    }
    return fresh;
  }

  private describe(window: Window, limit: number, allowed: boolean): RateLimitState {
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - window.count),
      resetAtMs: window.startMs + this.config.windowMs,
    };
  }

  private sweep(now: number): void {
    for (const [bucket, window] of this.windows) {
      if (now >= window.startMs + this.config.windowMs) this.windows.delete(bucket);
    }
  }
}

/** `X-RateLimit-Reset`: window end in whole Unix seconds, rounded up so it is never early. */
export function resetHeaderValue(state: RateLimitState): number {
  return Math.ceil(state.resetAtMs / 1000);
}

/** The bucket of callers without a valid key: their address. */
export function ipBucket(address: string | undefined): string {
  return `ip:${address ?? 'unknown'}`;
}

/** The headers every response carries, whatever its status. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    [RATE_LIMIT_REMAINING_HEADER]: String(state.remaining),
    [RATE_LIMIT_RESET_HEADER]: String(resetHeaderValue(state)),
    'X-RateLimit-Limit': String(state.limit),
  };
}
