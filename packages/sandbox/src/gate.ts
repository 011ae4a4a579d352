/**
 * What every API request passes before its handler, in the documented order (docs/api-decisions.md):
 * key (401) → rate limit (429) → plan (403 plan_required) → scope (403 missing_scope). It runs in
 * an onRequest hook, so before any body is parsed, and remembers per request what the handler and
 * the response hooks need: the caller's identity, its rate-limit state and the fresh reads.
 */
import type { FastifyRequest } from 'fastify';
import { ROUTES, type Scope } from '@feedbot/feed-api-contract';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import { hashApiKey, parseBearer } from './keys.js';
import { ipBucket, type FixedWindowLimiter, type RateLimitState } from './rate-limit.js';
import type { FreshReads, KeyIdentity } from './records.js';
import type { SandboxStore } from './store.js';

/** `/feeds/{id}` → `/feeds/:id` */
export const toFastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export class RequestGate {
  private readonly rates = new WeakMap<FastifyRequest, RateLimitState>();
  private readonly identities = new WeakMap<FastifyRequest, KeyIdentity>();
  /** One freshness check per request (in authenticate), shared by the handler's cached reads. */
  private readonly freshReads = new WeakMap<FastifyRequest, FreshReads>();
  /** `GET /feeds/:id/posts` → the scope it needs. */
  private readonly routeScopes = new Map<string, Scope>();

  constructor(
    private readonly store: SandboxStore,
    private readonly limiter: FixedWindowLimiter,
    private readonly clock: Clock,
    /** Fastify route patterns anyone may read: they report but do not spend the caller's IP budget. */
    private readonly publicRoutes: ReadonlySet<string>,
  ) {
    for (const route of Object.values(ROUTES)) this.routeScopes.set(`${route.method} ${toFastifyPath(route.path)}`, route.scope);
  }

  /** The onRequest check: the whole order above for API routes, only the IP budget's state for public ones. */
  async admit(request: FastifyRequest): Promise<void> {
    const pattern = request.routeOptions.url;
    if (pattern !== undefined && this.publicRoutes.has(pattern)) {
      this.rates.set(request, this.limiter.peek(ipBucket(request.ip)));
      return;
    }
    const identity = await this.authenticate(request);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const scope = pattern === undefined ? undefined : this.routeScopes.get(`${method} ${pattern}`);
    if (scope && !identity.scopes.includes(scope)) {
      throw new ApiError(403, 'missing_scope', `La clave no tiene el alcance ${scope}, necesario para ${method} ${pattern ?? ''}`);
    }
  }

  /** Key → limit → plan; returns the identity or throws the matching ApiError. */
  async authenticate(request: FastifyRequest): Promise<KeyIdentity> {
    const bearer = parseBearer(request.headers.authorization);
    let identity: KeyIdentity | undefined;
    if (bearer.kind === 'key') {
      const reads = await this.store.fresh();
      this.freshReads.set(request, reads);
      identity = await reads.keyByHash(hashApiKey(bearer.key));
    }
    if (!identity) {
      // Unknown callers spend a per-IP budget, so guessing keys is rate limited too.
      const rate = this.limiter.hit(ipBucket(request.ip));
      this.rates.set(request, rate);
      if (!rate.allowed) throw this.rateLimited(rate);
      if (bearer.kind === 'missing') {
        throw new ApiError(401, 'missing_api_key', 'Falta la cabecera Authorization: Bearer <API_KEY>');
      }
      throw new ApiError(401, 'invalid_api_key', 'La clave de API no es válida');
    }
    const rate = this.limiter.hit(`key:${identity.keyHash}`, identity.rateLimit ?? undefined);
    this.rates.set(request, rate);
    this.identities.set(request, identity);
    if (!rate.allowed) throw this.rateLimited(rate);
    if (identity.plan !== 'server') {
      throw new ApiError(403, 'plan_required', `La API solo está disponible en el plan server (plan actual: ${identity.plan})`);
    }
    return identity;
  }

  /** The authenticated caller; only API route handlers ask, and the gate admitted them. */
  identityOf(request: FastifyRequest): KeyIdentity {
    const identity = this.identities.get(request);
    if (!identity) throw new ApiError(500, 'internal_error', 'Error interno');
    return identity;
  }

  /** For the request log: the caller's server, if its key was valid. */
  guildOf(request: FastifyRequest): string | undefined {
    return this.identities.get(request)?.guildId;
  }

  /** The rate-limit state the response reports. */
  rateFor(request: FastifyRequest): RateLimitState {
    return this.rates.get(request) ?? this.limiter.peek(ipBucket(request.ip));
  }

  /** The reads checked for freshness when this request was authenticated (not a promise then: this is on every GET /feeds). */
  readsFor(request: FastifyRequest): FreshReads | Promise<FreshReads> {
    return this.freshReads.get(request) ?? this.store.fresh();
  }

  /** Whole seconds until the window resets, at least 1 (Retry-After and the 429 message). */
  retryAfterSeconds(rate: RateLimitState): number {
    return Math.max(1, Math.ceil((rate.resetAtMs - this.clock.now()) / 1000));
  }

  private rateLimited(rate: RateLimitState): ApiError {
    return new ApiError(429, 'rate_limited', `Límite de ${rate.limit} solicitudes por minuto superado; reintenta en ${this.retryAfterSeconds(rate)} s`);
  }
}
