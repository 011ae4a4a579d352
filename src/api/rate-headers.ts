/**
 * Reading `X-RateLimit-Remaining` / `X-RateLimit-Reset` (and `Retry-After` as a fallback on 429).
 * A missing or malformed header is ignored, never fatal.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { RATE_LIMIT_REMAINING_HEADER, RATE_LIMIT_RESET_HEADER } from '@feedbot/feed-api-contract';

/** A reset further ahead than this is clamped: a bogus header must not lock a key for hours. */
export const MAX_RESET_AHEAD_MS = 10 * 60_000;

export type HeaderBag = IncomingHttpHeaders | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first.trim() : undefined;
}

export function parseRemaining(headers: HeaderBag): number | null {
  const raw = header(headers, RATE_LIMIT_REMAINING_HEADER);
  if (raw === undefined || !/^\d{1,9}$/.test(raw)) return null;
  return Number(raw);
}

/**
 * The spec says a Unix timestamp (seconds). Tolerated too, since servers differ: milliseconds
 * since the epoch (≥ 1e12) and, for small numbers (< 1e9), seconds from now (the other common
 * convention). Returns epoch ms, clamped to `now + MAX_RESET_AHEAD_MS`.
 */
export function parseReset(headers: HeaderBag, nowMs: number): number | null {
  const raw = header(headers, RATE_LIMIT_RESET_HEADER);
  if (raw === undefined || !/^\d{1,16}(\.\d+)?$/.test(raw)) return null;
  const n = Number(raw);
  if (!Number.isFinite(n)) return null;
  let ms: number;
  if (n >= 1e12) ms = n;
  else if (n >= 1e9) ms = n * 1000;
  else ms = nowMs + n * 1000;
  return Math.min(Math.round(ms), nowMs + MAX_RESET_AHEAD_MS);
}

/** `Retry-After`: delay in seconds or an HTTP date. */
export function parseRetryAfter(headers: HeaderBag, nowMs: number): number | null {
  const raw = header(headers, 'retry-after');
  if (raw === undefined || raw === '') return null;
  let ms: number;
  if (/^\d{1,9}$/.test(raw)) ms = nowMs + Number(raw) * 1000;
  else {
    const t = Date.parse(raw);
    if (Number.isNaN(t)) return null;
    ms = t;
  }
  return Math.min(ms, nowMs + MAX_RESET_AHEAD_MS);
}
