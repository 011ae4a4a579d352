/**
 * The bot's client for the feed REST API (src/contract/feed-api.ts, /work/shared/spec/feed-api.md).
 *
 * One call = at most 1 + maxRetries HTTP attempts, each behind the per-key rate gate, each with
 * its own time-out, all within one overall deadline; the 2xx body is validated against the
 * route's zod schema. Identical GETs in flight share one request; GET /feeds is cached briefly
 * per guild for autocomplete. The API key only ever travels in the Authorization header: it is
 * hashed for every in-memory map, never logged, and scrubbed from anything the server echoes.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import {
  ContentKindSchema,
  CreateFeedRequestSchema,
  POSTS_LIMIT_MAX,
  ROUTES,
  type ContentKind,
  type CreateFeedRequest,
  type CreateFeedResponse,
  type DeleteFeedResponse,
  type FeedListResponse,
  type PostsResponse,
  type RouteName,
  type Scope,
  type Stats,
} from '@feedbot/feed-api-contract';
import { silentLogger, type Logger } from '../logger.js';
import { extractApiMessage, scrubSecret } from './api-message.js';
import {
  ConnectionError,
  FeedApiError,
  ForbiddenError,
  InvalidRequestError,
  InvalidResponseError,
  RateLimitedError,
  TimeoutError,
  UnauthorizedError,
  BadRequestError,
  httpErrorFor,
} from './errors.js';
import { FeedsCache } from './feeds-cache.js';
import { attempt, TransportFailure, type AttemptResponse } from './http.js';
import { RateGate } from './rate-gate.js';
import { backoffMs, shouldRetry, type AttemptOutcome } from './retry-policy.js';

export interface ApiAuth {
  apiKey: string;
  guildId: string;
}

export interface FeedApiClientOptions {
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
  /** GET /feeds cache lifetime per guild. Default 30_000; 0 disables the cache. */
  feedsCacheTtlMs?: number;
  /** Bound on guilds in the feeds cache and on keys in the rate gate. Default 10_000. */
  maxTrackedEntries?: number;
  logger?: Logger;
  /** Wall clock (epoch ms) for rate-limit windows and cache expiry; injectable for tests. */
  now?: () => number;
  /** Randomness for backoff jitter; injectable for tests. */
  random?: () => number;
}

export type ProbeAnswer = boolean | null;

export interface KeyProbe {
  /** false only when the API answered 401. */
  valid: boolean;
  /** null = could not tell (error other than 403/400, or the key is invalid). */
  scopes: Record<Scope, ProbeAnswer>;
  /** Present when GET /stats answered with a valid body: compare `servidor` with the guild id. */
  stats?: Stats;
  /** Present (true) when a 403 said the account is not on the plan the API requires. */
  planRequired?: true;
}

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
  feedsCacheTtlMs: z.number().int().min(0).max(10 * 60_000).default(30_000),
  maxTrackedEntries: z.number().int().positive().default(10_000),
});

const ApiKeySchema = z.string().min(1, 'apiKey must not be empty').max(4096).regex(/^[\x21-\x7e]+$/, 'apiKey must be printable ASCII without spaces');
const AuthSchema = z.object({ apiKey: ApiKeySchema, guildId: z.string().min(1, 'guildId must not be empty') });
const IdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const PostsQueryInputSchema = z
  .object({
    limite: z.number().int().min(1).max(POSTS_LIMIT_MAX).optional(),
    tipo: ContentKindSchema.optional(),
  })
  .strict();

const BACKOFF_CAP_MS = 2000;
/** A retry that could not get at least this long (or its time-out, if shorter) is not started. */
const MIN_ATTEMPT_MS = 500;

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('base64url');
}

function zodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    let path = '';
    for (const p of i.path) path += typeof p === 'number' ? `[${p}]` : path === '' ? String(p) : `.${String(p)}`;
    return `${path === '' ? '(root)' : path}: ${i.message}`;
  });
}

function parseInput<T>(schema: z.ZodType<T>, value: unknown, route: RouteName, prefix?: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issues = zodIssues(r.error).map((s) => (prefix ? `${prefix}.${s}` : s));
    throw new InvalidRequestError({ route, issues });
  }
  return r.data;
}

interface CallSpec {
  route: RouteName;
  apiKey: string;
  keyHash: string;
  path: string;
  body?: unknown;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class FeedApiClient {
  private readonly baseUrl: string;
  private readonly dispatcher?: Dispatcher;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly totalTimeoutMs: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly gate: RateGate;
  private readonly cache: FeedsCache;
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(options: FeedApiClientOptions) {
    const o = OptionsSchema.parse(options);
    this.baseUrl = o.baseUrl;
    this.dispatcher = options.dispatcher;
    this.timeoutMs = o.timeoutMs;
    this.maxRetries = o.maxRetries;
    this.retryBaseMs = o.retryBaseMs;
    this.totalTimeoutMs = o.totalTimeoutMs;
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.gate = new RateGate({ now: this.now, maxKeys: o.maxTrackedEntries });
    this.cache = new FeedsCache({ ttlMs: o.feedsCacheTtlMs, maxEntries: o.maxTrackedEntries, now: this.now });
  }

  // ─── Routes ────────────────────────────────────────────────────────────────────────────────

  /** GET /feeds. Served from the guild's cache unless `fresh`; a network answer refills it. */
  async listFeeds(auth: ApiAuth, opts?: { fresh?: boolean }): Promise<FeedListResponse> {
    const a = parseInput(AuthSchema, auth, 'listFeeds');
    const keyHash = hashApiKey(a.apiKey);
    if (!opts?.fresh) {
      const cached = this.cache.get(a.guildId, keyHash);
      if (cached) return cached;
    }
    const fill = this.cache.beginFill(a.guildId, keyHash);
    let value: FeedListResponse | undefined;
    try {
      value = await this.shared<FeedListResponse>({ route: 'listFeeds', apiKey: a.apiKey, keyHash, path: '/feeds' });
      return value;
    } finally {
      this.cache.completeFill(fill, value);
    }
  }

  /** The guild's cached feed list, if fresh enough. Synchronous and never sends: for autocomplete. */
  cachedFeeds(guildId: string): FeedListResponse | undefined {
    return this.cache.get(guildId);
  }

  /** POST /feeds. Never retried once it may have reached the server. Invalidates the guild cache. */
  async createFeed(auth: ApiAuth, body: CreateFeedRequest): Promise<CreateFeedResponse> {
    const a = parseInput(AuthSchema, auth, 'createFeed');
    const parsed = parseInput(CreateFeedRequestSchema, body, 'createFeed', 'body');
    const keyHash = hashApiKey(a.apiKey);
    return this.mutating(a.guildId, keyHash, () =>
      this.execute<CreateFeedResponse>({ route: 'createFeed', apiKey: a.apiKey, keyHash, path: '/feeds', body: parsed }),
    );
  }

  /** DELETE /feeds/{id}. Invalidates the guild cache whatever the answer (404 included). */
  async deleteFeed(auth: ApiAuth, id: number): Promise<DeleteFeedResponse> {
    const a = parseInput(AuthSchema, auth, 'deleteFeed');
    const feedId = parseInput(IdSchema, id, 'deleteFeed', 'id');
    const keyHash = hashApiKey(a.apiKey);
    return this.mutating(a.guildId, keyHash, () =>
      this.execute<DeleteFeedResponse>({ route: 'deleteFeed', apiKey: a.apiKey, keyHash, path: `/feeds/${feedId}` }),
    );
  }

  /** GET /feeds/{id}/posts, optional `limite` (1–50) and `tipo`. */
  async listPosts(auth: ApiAuth, id: number, query?: { limite?: number; tipo?: ContentKind }): Promise<PostsResponse> {
    const a = parseInput(AuthSchema, auth, 'listPosts');
    const feedId = parseInput(IdSchema, id, 'listPosts', 'id');
    const q = parseInput(PostsQueryInputSchema, query ?? {}, 'listPosts', 'query');
    const params = new URLSearchParams();
    if (q.limite !== undefined) params.set('limite', String(q.limite));
    if (q.tipo !== undefined) params.set('tipo', q.tipo);
    const qs = params.size > 0 ? `?${params.toString()}` : '';
    return this.shared<PostsResponse>({
      route: 'listPosts',
      apiKey: a.apiKey,
      keyHash: hashApiKey(a.apiKey),
      path: `/feeds/${feedId}/posts${qs}`,
    });
  }

  /** GET /stats. */
  async getStats(auth: ApiAuth): Promise<Stats> {
    const a = parseInput(AuthSchema, auth, 'getStats');
    return this.shared<Stats>({ route: 'getStats', apiKey: a.apiKey, keyHash: hashApiKey(a.apiKey), path: '/stats' });
  }

  /**
   * Learns what a key may do without changing any data: GET /feeds, GET /stats, and POST /feeds
   * with `{}` — a body no server can create a feed from, so 400 means "you may write, but not
   * this" and 403 means "you may not write". A 401 anywhere means the key is not valid; a 429
   * (local or upstream) is thrown as RateLimitedError. Nothing is cached.
   */
  async probeKey(apiKey: string): Promise<KeyProbe> {
    const key = parseInput(ApiKeySchema, apiKey, 'listFeeds', 'apiKey');
    const keyHash = hashApiKey(key);
    const invalid: KeyProbe = { valid: false, scopes: { 'feeds:read': null, 'feeds:write': null, 'stats:read': null } };

    const read = await this.probeOne(() => this.shared({ route: 'listFeeds', apiKey: key, keyHash, path: '/feeds' }), 'GET');
    if (read.unauthorized) return invalid;
    const [stats, write] = await Promise.all([
      this.probeOne(() => this.shared<Stats>({ route: 'getStats', apiKey: key, keyHash, path: '/stats' }), 'GET'),
      this.probeOne(() => this.execute({ route: 'createFeed', apiKey: key, keyHash, path: '/feeds', body: {} }), 'POST'),
    ]);
    if (stats.unauthorized || write.unauthorized) return invalid;
    const probe: KeyProbe = {
      valid: true,
      scopes: { 'feeds:read': read.answer, 'feeds:write': write.answer, 'stats:read': stats.answer },
    };
    if (stats.value !== undefined) probe.stats = stats.value;
    if (read.planRequired || stats.planRequired || write.planRequired) probe.planRequired = true;
    return probe;
  }

  /** Unreserved budget and window end for a key, as last learnt; nulls when unknown. */
  gateState(apiKey: string): { remaining: number | null; resetAt: Date | null } {
    return this.gate.snapshot(hashApiKey(apiKey));
  }

  /** Drops the gate state and cached lists of a removed or replaced key. */
  forgetKey(apiKey: string): void {
    const keyHash = hashApiKey(apiKey);
    this.gate.forget(keyHash);
    this.cache.invalidateKey(keyHash);
    this.inFlight.delete(this.shareKey(keyHash, '/feeds'));
  }

  // ─── Machinery ─────────────────────────────────────────────────────────────────────────────

  private async probeOne<T>(
    run: () => Promise<T>,
    method: 'GET' | 'POST',
  ): Promise<{ answer: ProbeAnswer; unauthorized: boolean; value?: T; planRequired?: boolean }> {
    try {
      const value = await run();
      // A POST of `{}` that succeeds proves nothing we asked (and should not happen): "cannot tell".
      return method === 'GET' ? { answer: true, unauthorized: false, value } : { answer: null, unauthorized: false };
    } catch (err) {
      if (err instanceof RateLimitedError) throw err;
      if (err instanceof UnauthorizedError) return { answer: null, unauthorized: true };
      if (err instanceof ForbiddenError) return { answer: false, unauthorized: false, planRequired: err.planRequired };
      if (method === 'POST' && err instanceof BadRequestError) return { answer: true, unauthorized: false };
      // The route answered 2xx, only the body was off: the scope is there.
      if (method === 'GET' && err instanceof InvalidResponseError && err.status !== undefined) {
        return { answer: true, unauthorized: false };
      }
      return { answer: null, unauthorized: false };
    }
  }

  /** Runs a create/delete and then invalidates the guild's list, unless nothing was sent. */
  private async mutating<T>(guildId: string, keyHash: string, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.invalidate(guildId, keyHash);
      return result;
    } catch (err) {
      // A time-out or 5xx may still have changed the list; only a refusal before sending did not.
      if (!(err instanceof FeedApiError) || err.attempts > 0) this.invalidate(guildId, keyHash);
      throw err;
    }
  }

  private invalidate(guildId: string, keyHash: string): void {
    this.cache.invalidateGuild(guildId);
    // A list already in flight started before the change: later callers must not join it.
    this.inFlight.delete(this.shareKey(keyHash, '/feeds'));
  }

  private shareKey(keyHash: string, path: string): string {
    return `${keyHash} GET ${path}`;
  }

  /** GETs: identical ones in flight (same key, path and query) share one execution. */
  private shared<T>(spec: CallSpec): Promise<T> {
    const k = this.shareKey(spec.keyHash, spec.path);
    const existing = this.inFlight.get(k);
    if (existing) return existing as Promise<T>;
    const p = this.execute<T>(spec).finally(() => {
      if (this.inFlight.get(k) === p) this.inFlight.delete(k);
    });
    this.inFlight.set(k, p);
    return p;
  }

  private async execute<T>(spec: CallSpec): Promise<T> {
    const route = ROUTES[spec.route];
    const url = new URL(`${this.baseUrl}${spec.path}`);
    const headers: Record<string, string> = {
      authorization: `Bearer ${spec.apiKey}`,
      accept: 'application/json',
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const started = performance.now();
    const deadline = started + this.totalTimeoutMs;
    let lastError: FeedApiError | undefined;

    for (let n = 1; n <= this.maxRetries + 1; n++) {
      const budget = deadline - performance.now();
      if (n > 1 && budget < Math.min(this.timeoutMs, MIN_ATTEMPT_MS) && lastError) throw lastError;
      const decision = await this.gate.acquire(spec.keyHash);
      if (!decision.ok) {
        this.logger.debug({ route: spec.route, attempt: n, local: true }, 'feed api request refused by rate gate');
        // On a retry, the original failure is the more truthful answer than "budget spent".
        if (lastError) throw lastError;
        throw new RateLimitedError({ route: spec.route, attempts: 0, resetAt: decision.resetAt, local: true });
      }
      const timeoutMs = Math.max(1, Math.min(this.timeoutMs, Math.floor(deadline - performance.now())));
      const t0 = performance.now();
      let res: AttemptResponse | undefined;
      let outcome: AttemptOutcome;
      try {
        res = await attempt({ dispatcher: this.dispatcher, url, method: route.method, headers, body, timeoutMs });
        decision.permit.release(res.headers, res.status);
        outcome = { kind: 'status', status: res.status };
      } catch (err) {
        const f = err instanceof TransportFailure ? err : undefined;
        decision.permit.release(f?.headers);
        if (f?.kind === 'timeout') {
          outcome = { kind: 'timeout' };
          lastError = new TimeoutError({ route: spec.route, attempts: n, timeoutMs, cause: f.cause });
        } else {
          outcome = { kind: 'connection', systemCode: f?.systemCode };
          lastError = new ConnectionError({ route: spec.route, attempts: n, systemCode: f?.systemCode, cause: f?.cause ?? err });
        }
      }
      this.logger.debug(
        {
          route: spec.route,
          method: route.method,
          status: res?.status ?? outcome.kind,
          attempt: n,
          ms: Math.round(performance.now() - t0),
          remaining: this.gate.snapshot(spec.keyHash).remaining,
        },
        'feed api request',
      );

      if (res) {
        if (res.status >= 200 && res.status <= 299) return this.validate<T>(spec, res, n);
        lastError = this.httpError(spec, res, n);
      }
      if (!lastError || !shouldRetry(route.method, outcome) || n > this.maxRetries) break;
      const wait = backoffMs(n, this.retryBaseMs, BACKOFF_CAP_MS, this.random);
      if (performance.now() + wait >= deadline) break;
      await sleep(wait);
    }
    throw lastError ?? new FeedApiError('internal', 'Feed API call ended without an answer', { route: spec.route, attempts: 0 });
  }

  private validate<T>(spec: CallSpec, res: AttemptResponse, n: number): T {
    const fail = (issues: string[]) =>
      new InvalidResponseError({ route: spec.route, attempts: n, issues, status: res.status });
    if (res.truncated) throw fail(['(root): response body too large']);
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch {
      throw fail([res.text.trim() === '' ? '(root): empty body, expected JSON' : '(root): body is not valid JSON']);
    }
    const parsed = ROUTES[spec.route].response.safeParse(json);
    if (!parsed.success) throw fail(zodIssues(parsed.error));
    return parsed.data as T;
  }

  private httpError(spec: CallSpec, res: AttemptResponse, n: number): FeedApiError {
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
      return new RateLimitedError({ ...init, resetAt: this.gate.resetFor429(res.headers), local: false });
    }
    return httpErrorFor(init);
  }
}
