/**
 * When a failed attempt may be repeated, and how long to wait first.
 *
 * The rule: repeat only what cannot do harm twice.
 *  - GET is safe; DELETE is idempotent (deleting twice leaves the same state; a second try may
 *    answer 404, which deleteFeed treats as "already gone" when an earlier attempt may have
 *    reached the API: see mayHaveReachedServer). Both are retried on connection
 *    failures, time-outs and 5xx (except 501: "not implemented" will not heal).
 *  - POST creates a feed. If the request may have reached the server, a retry could create a
 *    duplicate, so a POST is retried ONLY on connection errors proven to happen before any byte
 *    of the request was written: refused connection, failed DNS lookup, unreachable network,
 *    connect time-out. Never on a reset, a time-out or any HTTP status.
 *  - 429 is never retried: it is surfaced so the user hears why and until when.
 *  - TLS/certificate failures and unknown errors are not retried: they do not heal in a second.
 */

/** Failures where the connection was never established, so the request was not sent. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Transient failures after (or maybe after) the request went out. */
const MAYBE_SENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

export type Method = 'GET' | 'POST' | 'DELETE';

export type AttemptOutcome =
  | { kind: 'status'; status: number }
  /** `timeoutMs`: the attempt's time-out, as the request layer reports it (the policy does not need it). */
  | { kind: 'timeout'; timeoutMs?: number }
  | { kind: 'connection'; systemCode?: string };

function isIdempotent(method: Method): boolean {
  return method === 'GET' || method === 'DELETE';
}

/**
 * Whether a failed attempt may have reached the API (and done its work there): any HTTP status,
 * a time-out, a connection failure not proven to happen before sending. A DELETE retried after
 * such an attempt that then answers 404 found what that attempt left: the feed already gone.
 */
export function mayHaveReachedServer(outcome: AttemptOutcome): boolean {
  if (outcome.kind !== 'connection') return true;
  return outcome.systemCode === undefined || !NOT_SENT_CODES.has(outcome.systemCode);
}

/**
 * Whether a connection failure may have come after the request was written: a reset or a cut
 * socket may have; a refused connection or a certificate refused in the handshake did not.
 */
export function mayHaveBeenSent(systemCode: string | undefined): boolean {
  return systemCode === undefined || MAYBE_SENT_CODES.has(systemCode);
}

export function shouldRetry(method: Method, outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'connection') {
    const code = outcome.systemCode;
    if (code === undefined) return false;
    if (NOT_SENT_CODES.has(code)) return true;
    return isIdempotent(method) && MAYBE_SENT_CODES.has(code);
  }
  if (!isIdempotent(method)) return false;
  if (outcome.kind === 'timeout') return true;
  return outcome.status >= 500 && outcome.status <= 599 && outcome.status !== 501;
}

/** "Full jitter": uniform in [0, min(cap, base·2^(retry-1))). Spreads a herd of retries apart. */
export function backoffMs(retry: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
}
