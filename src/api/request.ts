/**
 * The request layer of the feed API client: from "send this route with this key" to a validated
 * answer or one typed error. Route methods (client.ts) and the key probe (key-probe.ts) build on it.
 *
 * One call = at most 1 + maxRetries HTTP attempts, each behind the per-key rate gate, each with
 * its own time-out, all within one overall deadline; the 2xx body is validated against the
 * route's zod schema. Identical GETs in flight share one execution. Every attempt is reported to
 * the `onResponse` observers. The API key only ever travels in the Authorization header: it is
 * hashed for every in-memory map (and the shared gate's Redis keys), never reported, and scrubbed
 * from anything the server echoes.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { ROUTES, type RouteName } from '@feedbot/feed-api-contract';
import { extractApiMessage, scrubSecret } from './api-message.js';
import {
  ConnectionError,
  InvalidResponseError,
  RateGateRefusalError,
  RateLimitedError,
  TimeoutError,
  httpErrorFor,
  type FeedApiError,
} from './errors.js';
import { attempt, TransportFailure, type AttemptRequest, type AttemptResponse } from './http.js';
import type { GatePermit, GateSnapshot, RateGate } from './gate.js';
import { MemoryRateGate } from './rate-gate.js';
import type { SharedStateBackend } from '../replicas/shared-state.js';
import { Observers } from '../observers.js';
import type { ResponseEvent, ResponseListener } from './response-events.js';
import { backoffMs, mayHaveReachedServer, shouldRetry, type AttemptOutcome, type Method } from './retry-policy.js';
import { zodIssues } from './validation.js';
import { tracer, type TraceSpan } from '../tracing/tracer.js';

export interface RequesterOptions {
  /** Base URL including any path prefix, e.g. `https://api.example/v1` (https in production). */
  baseUrl: string;
  /** undici dispatcher (Agent, MockAgent…); undici's global one when absent. */
  dispatcher?: Dispatcher;
  /** Per attempt, headers and body together. Default 5000. */
  timeoutMs?: number;
  /** Retries after the first attempt, for safe requests only. Default 2. */
  maxRetries?: number;
  /** Backoff base; retry n waits uniformly in [0, min(2000, base·2^(n-1))). Default 200. */
  retryBaseMs?: number;
  /** Whole call, all attempts and waits included. Default 10_000. */
  totalTimeoutMs?: number;
  /** Bound on keys in the rate gate. Default 10_000. */
  maxTrackedEntries?: number;
  /** Wall clock (epoch ms) for rate-limit windows; injectable for tests. */
  now?: () => number;
  /** Randomness for backoff jitter; injectable for tests. */
  random?: () => number;
  /** Where the rate gate lives when replicas share it (REDIS_URL); this process when absent. */
  sharedState?: Pick<SharedStateBackend, 'rateGate'>;
}

interface RequestSpec<R extends RouteName = RouteName> {
  route: R;
  apiKey: string;
  /** Path and query under the base URL, e.g. `/feeds/3/posts?limite=5`. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  /** The feed the request is about: a 404 names it. */
  feedId?: number;
}

/** The validated 2xx body of a route. */
type RouteResponse<R extends RouteName> = z.output<(typeof ROUTES)[R]['response']>;

const OptionsSchema = z.object({
  baseUrl: z
    .string()
    .trim()
    .pipe(z.url({ protocol: /^https?$/ }))
    .transform((u) => u.replace(/\/+$/, '')),
  timeoutMs: z.number().int().positive().max(120_000).default(5000),
  maxRetries: z.number().int().min(0).max(5).default(2),
  retryBaseMs: z.number().min(0).max(10_000).default(200),
  // Users wait behind a deferred reply: 3 attempts × 5 s would be 15 s, so the whole call is
  // capped at 10 s and a retry that cannot get a useful slice of it is not started.
  totalTimeoutMs: z.number().int().positive().max(14 * 60_000).default(10_000),
  maxTrackedEntries: z.number().int().positive().default(10_000),
});

const BACKOFF_CAP_MS = 2000;
/** A retry that could not get at least this long (or its time-out, if shorter) is not started. */
const MIN_ATTEMPT_MS = 500;
/** Beyond an attempt's time-out, how long a shared reservation may wait for its release to land. */
const RELEASE_SLACK_MS = 2000;

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('base64url');
}

/** An execution that identical GETs join; it keeps its events for those who join it. */
interface SharedCall {
  promise: Promise<unknown>;
  events: ResponseEvent[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class FeedApiRequester {
  private readonly baseUrl: string;
  private readonly dispatcher?: Dispatcher;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  /** The whole call's bound, all attempts together. */
  readonly totalTimeoutMs: number;
  private readonly random: () => number;
  private readonly gate: RateGate;
  private readonly observers = new Observers<ResponseEvent>('feed API response');
  private readonly inFlight = new Map<string, SharedCall>();

  constructor(options: RequesterOptions) {
    const o = OptionsSchema.parse(options);
    this.baseUrl = o.baseUrl;
    this.dispatcher = options.dispatcher;
    this.timeoutMs = o.timeoutMs;
    this.maxRetries = o.maxRetries;
    this.retryBaseMs = o.retryBaseMs;
    this.totalTimeoutMs = o.totalTimeoutMs;
    this.random = options.random ?? Math.random;
    const now = options.now ?? Date.now;
    this.gate =
      options.sharedState?.rateGate({ now, reservationTtlMs: o.timeoutMs + RELEASE_SLACK_MS }) ?? new MemoryRateGate({ now, maxKeys: o.maxTrackedEntries });
  }

  /** Calls `listener` after every attempt (and for every refusal); returns the unsubscribe. */
  onResponse(listener: ResponseListener): () => void {
    return this.observers.add(listener);
  }

  /** Sends one call. A GET identical (same key, path and query) to one in flight joins it. */
  send<R extends RouteName>(spec: RequestSpec<R>): Promise<RouteResponse<R>> {
    const { method, path } = ROUTES[spec.route];
    // A client span per call: its attempts are its events, a joined GET says so.
    return tracer().inSpan(
      `${method} ${path}`,
      { kind: 'client', attributes: { 'http.request.method': method, 'url.template': path, 'feedbot.api.route': spec.route } },
      (span) => this.sendTraced(spec, span),
    ) as Promise<RouteResponse<R>>;
  }

  private sendTraced(spec: RequestSpec, span: TraceSpan): Promise<unknown> {
    const keyHash = hashApiKey(spec.apiKey);
    const report = (e: ResponseEvent) => {
      spanAttempt(span, e);
      this.observers.emit(e);
    };
    if (ROUTES[spec.route].method !== 'GET') return this.execute(spec, keyHash, report);
    const k = shareKey(keyHash, spec.path);
    const existing = this.inFlight.get(k);
    if (existing) {
      span.set({ 'feedbot.api.joined': true });
      return this.join(existing, span);
    }
    const events: ResponseEvent[] = [];
    const promise = this.execute(spec, keyHash, (e) => {
      events.push(e);
      report(e);
    }).finally(() => {
      if (this.inFlight.get(k)?.promise === promise) this.inFlight.delete(k);
    });
    this.inFlight.set(k, { promise, events });
    return promise;
  }

  /** Later callers of this GET start their own request instead of joining the one in flight. */
  unshare(apiKey: string, path: string): void {
    this.inFlight.delete(shareKey(hashApiKey(apiKey), path));
  }

  /** Unreserved budget and window end for a key, as last learnt; nulls when unknown. */
  gateState(apiKey: string): Promise<GateSnapshot> {
    return this.gate.snapshot(hashApiKey(apiKey));
  }

  /** Drops what the gate learnt about a removed or replaced key. */
  forgetKey(apiKey: string): Promise<void> {
    return this.gate.forget(hashApiKey(apiKey));
  }

  private join(call: SharedCall, span: TraceSpan): Promise<unknown> {
    // Promise reactions run in the async context of whoever called `then`: the joiner's, so its
    // observers' scope (its interaction's log line, say) learns what answered it.
    const replay = () => {
      for (const e of call.events) {
        spanAttempt(span, e);
        this.observers.emit({ ...e, joined: true });
      }
    };
    return call.promise.then(
      (value) => {
        replay();
        return value;
      },
      (err: unknown) => {
        replay();
        throw err;
      },
    );
  }

  private async execute(spec: RequestSpec, keyHash: string, report: (e: ResponseEvent) => void): Promise<unknown> {
    const method = ROUTES[spec.route].method;
    const url = new URL(`${this.baseUrl}${spec.path}`);
    const headers: Record<string, string> = { authorization: `Bearer ${spec.apiKey}`, accept: 'application/json' };
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const deadline = performance.now() + this.totalTimeoutMs;
    let lastError: FeedApiError | undefined;
    // Whether a failed attempt may already have done the call's work on the server.
    let mayHaveArrived = false;

    for (let n = 1; ; n++) {
      // `remaining`: the key's budget once this attempt's answer was learnt.
      const common = (retrying: boolean, latencyMs: number, remaining: number | null) => ({
        route: spec.route,
        method,
        attempt: n,
        retrying,
        latencyMs,
        remaining,
        joined: false,
      });
      const decision = await this.gate.acquire(keyHash);
      if (!decision.ok) {
        // A refusal means no unreserved unit is left: the budget is 0, known or held by a 429.
        report({ kind: 'refused', resetAt: decision.resetAt, ...common(false, 0, 0) });
        // On a retry, the original failure is the more truthful answer than "budget spent".
        throw lastError ?? new RateGateRefusalError({ route: spec.route, resetAt: decision.resetAt });
      }
      const timeoutMs = Math.max(1, Math.min(this.timeoutMs, Math.floor(deadline - performance.now())));
      const t0 = performance.now();
      const sent = await sendOnce({ dispatcher: this.dispatcher, url, method, headers, body, timeoutMs }, decision.permit);
      const latencyMs = performance.now() - t0;
      let outcome: AttemptOutcome;
      let failure: FeedApiError;
      if ('res' in sent) {
        outcome = { kind: 'status', status: sent.res.status };
        if (sent.res.status >= 200 && sent.res.status <= 299) {
          // A success whose body is no JSON at all (a proxy's error page) says nothing of what
          // happened: an idempotent call asks again, as after a 502. A body that is JSON but
          // breaks the contract, or too large, would read the same a second time, and a POST is
          // never repeated: those fail below.
          const wait = unreadable(sent.res) ? this.retryWait(method, { kind: 'status', status: 502 }, n, deadline) : undefined;
          report({ ...outcome, ...common(wait !== undefined, latencyMs, sent.after.remaining) });
          if (wait === undefined) return this.validate(spec, sent.res, n);
          lastError = new InvalidResponseError({ route: spec.route, attempts: n, issues: ['(root): body is not valid JSON'], status: sent.res.status });
          mayHaveArrived = true;
          await sleep(wait);
          continue;
        }
        failure = this.httpError(spec, sent.after, sent.res, n, mayHaveArrived);
      } else {
        outcome = sent.outcome;
        failure =
          sent.outcome.kind === 'timeout'
            ? new TimeoutError({ route: spec.route, attempts: n, timeoutMs, cause: sent.cause })
            : new ConnectionError({ route: spec.route, attempts: n, systemCode: sent.outcome.systemCode, cause: sent.cause });
      }
      lastError = failure;
      mayHaveArrived ||= mayHaveReachedServer(outcome);
      const wait = this.retryWait(method, outcome, n, deadline);
      report({ ...outcome, ...common(wait !== undefined, latencyMs, sent.after.remaining) });
      if (wait === undefined) throw failure;
      await sleep(wait);
    }
  }

  /** The backoff before the next attempt, or undefined when there is to be none. */
  private retryWait(method: Method, outcome: AttemptOutcome, n: number, deadline: number): number | undefined {
    if (n > this.maxRetries || !shouldRetry(method, outcome)) return undefined;
    const wait = backoffMs(n, this.retryBaseMs, BACKOFF_CAP_MS, this.random);
    const left = deadline - (performance.now() + wait);
    return left < Math.min(this.timeoutMs, MIN_ATTEMPT_MS) ? undefined : wait;
  }

  private validate(spec: RequestSpec, res: AttemptResponse, n: number): unknown {
    const fail = (issues: string[]) => new InvalidResponseError({ route: spec.route, attempts: n, issues, status: res.status });
    if (res.truncated) throw fail(['(root): response body too large']);
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch {
      throw fail([res.text.trim() === '' ? '(root): empty body, expected JSON' : '(root): body is not valid JSON']);
    }
    const parsed = ROUTES[spec.route].response.safeParse(json);
    if (!parsed.success) throw fail(zodIssues(parsed.error));
    return parsed.data;
  }

  /** `after`: the gate once it learnt this answer; `mayHaveArrived`: an earlier attempt of this call may have reached the API. */
  private httpError(spec: RequestSpec, after: GateSnapshot, res: AttemptResponse, n: number, mayHaveArrived: boolean): FeedApiError {
    let body: unknown;
    if (!res.truncated && res.text !== '') {
      try {
        body = JSON.parse(res.text);
      } catch {
        body = res.text;
      }
    }
    // Scrub before extracting: truncation must not leave half a key behind.
    body = scrubSecret(body, spec.apiKey);
    const init = { route: spec.route, attempts: n, status: res.status, body, apiMessage: extractApiMessage(body) };
    if (res.status === 429) {
      // The gate has learnt this 429 (and any earlier one still pending): its refusal's end is
      // when a request may go out again, so the user hears the same time a retry would.
      const resetAt = after.resetAt ?? this.gate.resetFor429(res.headers);
      return new RateLimitedError({ ...init, resetAt });
    }
    return httpErrorFor({ ...init, ...(spec.feedId !== undefined ? { feedId: spec.feedId } : {}), afterAttemptThatMayHaveArrived: mayHaveArrived });
  }
}

/** A body that cannot be an answer of the contract (each is a JSON object): an HTML page, nothing. */
function unreadable(res: AttemptResponse): boolean {
  return !res.truncated && !/^\s*\{/.test(res.text);
}

/** One attempt on the gate's permit, released with whatever headers arrived; `after`: what the gate then knows. */
async function sendOnce(
  req: AttemptRequest,
  permit: GatePermit,
): Promise<{ res: AttemptResponse; after: GateSnapshot } | { outcome: Exclude<AttemptOutcome, { kind: 'status' }>; cause: unknown; after: GateSnapshot }> {
  let res: AttemptResponse;
  try {
    res = await attempt(req);
  } catch (err) {
    const f = err instanceof TransportFailure ? err : undefined;
    const after = await permit.release(f?.headers);
    if (f?.kind === 'timeout') return { outcome: { kind: 'timeout', timeoutMs: req.timeoutMs }, cause: f.cause, after };
    return { outcome: { kind: 'connection', systemCode: f?.systemCode }, cause: f?.cause ?? err, after };
  }
  return { res, after: await permit.release(res.headers, res.status) };
}

/** The span learns each attempt's answer: the last one's status is the call's. */
function spanAttempt(span: TraceSpan, e: ResponseEvent): void {
  if (!tracer().enabled) return;
  const status = e.kind === 'status' ? e.status : e.kind;
  span.set({ 'feedbot.api.attempts': e.attempt, ...(typeof status === 'number' ? { 'http.response.status_code': status } : { 'error.type': status }) });
  if (!e.retrying && (e.kind !== 'status' || e.status >= 400)) span.failed(typeof status === 'number' ? `HTTP ${status}` : status);
}

function shareKey(keyHash: string, path: string): string {
  return `${keyHash} GET ${path}`;
}
