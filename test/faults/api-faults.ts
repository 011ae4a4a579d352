/**
 * The feed API misbehaving, one entry per fault: how it is injected on the MockAgent, how many
 * requests the retry policy sends for it, and what the user and the operator are told. A new
 * fault is one entry here. (The untrusted certificate needs a real TLS server: real-sockets.test.ts.)
 */
import { TimestampStyles, time } from 'discord.js';
import type { Interceptable } from 'undici';
import type { MessageKey, Translator } from '../../src/i18n/index.js';
import type { ApiTarget, Family, Method } from './families.js';
import type { Level } from './support.js';

/** What a test learns while injecting, for the expected text. */
export interface InjectContext {
  /** The fake clock (ms). */
  now: number;
  /** The X-RateLimit-Reset a 429 carried (unix seconds). */
  resetSec?: number;
}

export interface ApiFault {
  id: string;
  label: string;
  /** Makes the next requests to `target` fail this way, as many as `attempts` says. */
  inject(api: Interceptable, target: ApiTarget, ctx: InjectContext): void;
  /** Requests sent for one call, by method: the retry policy (src/api/retry-policy.ts). */
  attempts: Record<Method, number>;
  /** The first failed request ends the call for every method (a 429 is never retried and stops the key probe). */
  stopsAtFirst?: boolean;
  /** The catalogue key of the explanation, and its placeholders. */
  explanation: { key: MessageKey; vars?: (ctx: InjectContext & { status: number; ref?: string }) => Record<string, string | number> };
  outcome: (status: number) => string;
  level: Level;
  /** An unexpected failure: the user gets a reference that is also in the log line. */
  ref: boolean;
  /** What else the log line says about the cause, whatever its level (a system code, a time-out). */
  logged?: Record<string, unknown>;
  /** The log line's upstreamStatus: the HTTP status, or null when no status came. */
  upstreamStatus: (target: ApiTarget) => number | null;
  /** Reset of the key's rate-limit window, for faults that spend it (the clock is moved past it). */
  spendsBudget?: boolean;
  /** The request may have done its work before the failure (src/api/errors.ts, mayHaveDoneWork): a create is then looked for, not reported failed. */
  mayHaveDoneWork?: boolean;
}

const json = (extra: Record<string, string> = {}) => ({ headers: { 'content-type': 'application/json', ...extra } });
const rateHeaders = (ctx: InjectContext) => json({ 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': String(Math.floor(ctx.now / 1000) + 60) });
const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });
const intercept = (api: Interceptable, target: ApiTarget) => api.intercept({ path: target.path, method: target.method });

/** GET and DELETE are retried twice on time-outs, resets and 5xx; POST is not (it may have been received). */
const RETRIED = { GET: 3, DELETE: 3, POST: 1 };
const ONCE = { GET: 1, DELETE: 1, POST: 1 };

function status(code: number): ApiFault {
  return {
    id: `http-${code}`,
    label: `HTTP ${code}`,
    inject: (api, target, ctx) => void intercept(api, target).reply(code, 'upstream failure', rateHeaders(ctx)).times(RETRIED[target.method]),
    attempts: RETRIED,
    explanation: { key: 'error.server', vars: ({ status }) => ({ status }) },
    outcome: () => `api_${code}`,
    level: 'warn',
    ref: false,
    upstreamStatus: () => code,
    mayHaveDoneWork: true,
  };
}

/** A 2xx whose body breaks the contract: an unexpected failure, with a reference. */
function invalidBody(id: string, label: string, body: string | object): ApiFault {
  return {
    id,
    label,
    inject: (api, target, ctx) => void intercept(api, target).reply(target.ok.status, body, rateHeaders(ctx)),
    attempts: ONCE,
    explanation: { key: 'error.invalidResponse', vars: ({ ref }) => ({ ref: ref ?? '' }) },
    outcome: () => 'api_invalid_response',
    level: 'error',
    ref: true,
    upstreamStatus: (target) => target.ok.status,
    mayHaveDoneWork: true,
  };
}

/** A failure with no HTTP status: explained as `key`, logged as `outcome` at warn, with its cause. */
function transport(
  id: string,
  label: string,
  key: MessageKey,
  outcome: string,
  logged: Record<string, unknown>,
  attempts: Record<Method, number>,
  inject: ApiFault['inject'],
): ApiFault {
  return { id, label, inject, attempts, explanation: { key }, outcome: () => outcome, level: 'warn', ref: false, logged, upstreamStatus: () => null };
}

export const API_FAULTS: ApiFault[] = [
  // The harness's per-attempt time-out is 400 ms: the answer comes too late for every attempt.
  {
    ...transport('timeout', 'time-out', 'error.timeout', 'api_timeout', { timeoutMs: 400 }, RETRIED, (api, target, ctx) =>
      void intercept(api, target).reply(target.ok.status, target.ok.body as object, rateHeaders(ctx)).delay(1_200).times(RETRIED[target.method]),
    ),
    mayHaveDoneWork: true,
  },
  {
    ...transport('reset', 'connection reset', 'error.connection', 'api_unreachable', { cause: 'ECONNRESET' }, RETRIED, (api, target) =>
      void intercept(api, target).replyWithError(systemError('ECONNRESET', 'read ECONNRESET')).times(RETRIED[target.method]),
    ),
    mayHaveDoneWork: true,
  },
  // Refused before any byte was sent: even a POST is retried (nothing can have been created).
  transport('refused', 'connection refused', 'error.connection', 'api_unreachable', { cause: 'ECONNREFUSED' }, { GET: 3, DELETE: 3, POST: 3 }, (api, target) =>
    void intercept(api, target).replyWithError(systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:443')).times(3),
  ),
  status(500),
  status(502),
  status(503),
  invalidBody('malformed-json', 'malformed JSON (2xx)', '{"feeds": [{"id": 1,'),
  // Renamed fields, as an API release that broke the contract would send them.
  invalidBody('contract-drift', 'contract drift (2xx, wrong shape)', { data: [{ feed_id: 1, account: 'nasa' }], count: 1 }),
  {
    id: '429-storm',
    label: '429 storm',
    // Every request is refused until the window resets; after the first, the client's gate
    // knows and refuses locally (the test checks that second run sends nothing).
    inject: (api, target, ctx) => {
      ctx.resetSec = Math.floor(ctx.now / 1000) + 42;
      intercept(api, target).reply(429, { error: { codigo: 'rate_limited', mensaje: 'Demasiadas peticiones' } }, json({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(ctx.resetSec) }));
    },
    attempts: ONCE,
    stopsAtFirst: true,
    explanation: { key: 'error.rateLimited', vars: ({ resetSec }) => rateLimitVars(resetSec!) },
    outcome: () => 'api_429',
    level: 'info',
    ref: false,
    upstreamStatus: () => 429,
    spendsBudget: true,
  },
];

export function rateLimitVars(resetSec: number): Record<string, string> {
  const reset = new Date(resetSec * 1000);
  return { relative: time(reset, TimestampStyles.RelativeTime), time: time(reset, TimestampStyles.LongTime) };
}

/** A write's "it may have happened, look first" (its catalogue key and placeholders). */
export interface Unconfirmed {
  key: 'create.unconfirmed' | 'delete.unconfirmed';
  vars: Record<string, string | number>;
}

/** What a write family of families.ts says when its answer was lost and the list cannot be read either. */
export function unconfirmedOf(f: Pick<Family, 'write'>): Unconfirmed | undefined {
  if (f.write?.method === 'POST') return { key: 'create.unconfirmed', vars: { cuenta: 'nasa' } };
  if (f.write?.method === 'DELETE') return { key: 'delete.unconfirmed', vars: { id: 1 } };
  return undefined;
}

/**
 * The explanation the user of `t` must read for this fault. A write (`unconfirmed`: what it says
 * then) that may have been done, and that the list (not answered here) could not settle, is
 * told to look before trying again.
 */
export function expectedText(fault: ApiFault, t: Translator, ctx: InjectContext & { status: number; ref?: string }, unconfirmed?: Unconfirmed): string {
  if (unconfirmed && fault.mayHaveDoneWork) return `${t(unconfirmed.key, unconfirmed.vars)}${ctx.ref ? ` ${t('error.reference', { ref: ctx.ref })}` : ''}`;
  return t(fault.explanation.key, fault.explanation.vars?.(ctx));
}
