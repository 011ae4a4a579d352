/**
 * The per-key rate gate as the request layer sees it, whatever holds its state: this process
 * (MemoryRateGate, rate-gate.ts, the default, whose header explains the rules) or a Redis server
 * every replica shares (src/replicas/redis-rate-gate.ts, the same rules in Lua). Every method is
 * async because the shared one asks Redis; none of them rejects.
 */
import { RATE_LIMIT_WINDOW_MS } from '@feedbot/feed-api-contract';
import { parseReset, parseRetryAfter, type HeaderBag } from './rate-headers.js';

/** Unreserved budget and reset time, or nulls when unknown. */
export interface GateSnapshot {
  remaining: number | null;
  resetAt: Date | null;
}

export type GateDecision = { ok: true; permit: GatePermit } | { ok: false; resetAt: Date };

export interface GatePermit {
  /**
   * Call once per sent request, with the response headers (none when the request failed); later
   * calls are ignored and get the first call's answer. Resolves with the key's state after this
   * answer was learnt; never rejects.
   */
  release(headers?: HeaderBag, status?: number): Promise<GateSnapshot>;
}

export interface RateGate {
  /** Resolves with a permit to send one request, or a refusal; may wait while a probe is out. */
  acquire(keyHash: string): Promise<GateDecision>;
  snapshot(keyHash: string): Promise<GateSnapshot>;
  /**
   * Drops the budget learnt for a key. A 429's refusal still pending stays (it is the server's
   * word, not our guess), and so do the requests still out: their answers must land somewhere.
   */
  forget(keyHash: string): Promise<void>;
  /** The reset time a 429 response implies: the later of its reset and Retry-After, else a full window. */
  resetFor429(headers: HeaderBag): Date;
}

/** What a shared gate needs to know of the requests it admits. */
export interface SharedGateOptions {
  /** Wall clock (epoch ms), the same one the rate-limit headers are read on. */
  now: () => number;
  /**
   * How long a reservation may stay unanswered: one attempt's time-out and a little more. A
   * replica that dies with requests in flight frees their units after this.
   */
  reservationTtlMs: number;
}

/** Two resets closer than this are the same window (the header has second resolution). */
export const SAME_WINDOW_MS = 1000;
/** Requests let through together into a new window of a key whose budget we have seen. */
export const MAX_NEW_WINDOW_BURST = 10;
/** Requests let through together before anything is known of a key's budget. */
export const FIRST_USE_BURST = 4;

export function resetFor429(headers: HeaderBag, now: number): Date {
  const said = [parseReset(headers, now), parseRetryAfter(headers, now)].filter((t) => t !== null);
  return new Date(said.length > 0 ? Math.max(...said) : now + RATE_LIMIT_WINDOW_MS);
}

export function unknownBudget(): GateSnapshot {
  return { remaining: null, resetAt: null };
}
