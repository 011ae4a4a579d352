/**
 * The feed API on fastify: authentication, limits and scopes in one onRequest hook (so they run
 * before any body is parsed), then validation with the contract's schemas, then the store.
 *
 * Order of checks (docs/api-decisions.md): plain HTTP (front door) → key (401) → rate limit (429)
 * → plan (403 plan_required) → scope (403 missing_scope) → validation (400) → existence (404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  FeedIdSchema,
  PostsQuerySchema,
  RATE_LIMIT_REMAINING_HEADER,
  RATE_LIMIT_RESET_HEADER,
  ROUTES,
  type FeedListItem,
  type Post,
  type Scope,
} from '@feedbot/feed-api-contract';
import { buildOpenApiDocument } from '@feedbot/feed-api-contract/openapi';
import type { Logger } from './log.js';
import { startOfUtcDay, startOfUtcIsoWeek, type Clock } from './clock.js';
import { POST_CODE_PATTERN } from './content.js';
import { ApiError, errorBody, feedNotFound, validationError, type ErrorCode } from './errors.js';
import { hashApiKey, parseBearer } from './keys.js';
import { renderPng, renderPostPage, renderSvg } from './media.js';
import { resetHeaderValue, type FixedWindowLimiter, type RateLimitState } from './rate-limit.js';
import type { FeedRecord, FreshReads, KeyIdentity, PostRecord, SandboxStore } from './store.js';

export interface AppDeps {
  store: SandboxStore;
  limiter: FixedWindowLimiter;
  clock: Clock;
  logger: Logger;
  /** The sandbox's own https URL, for mediaUrl/postUrl (known once it listens). */
  baseUrl: () => string;
  maxFeedsPerServer: number;
  bodyLimit: number;
  createServer: (handler: (req: IncomingMessage, res: ServerResponse) => void) => HttpsServer;
}

/** Routes anyone may read: docs, generated media, post pages. They report but do not spend the caller's IP budget. */
const PUBLIC_ROUTES = new Set(['/openapi.json', '/health', '/media/:file', '/p/:code']);

const FEED_ID_PATTERN = /^[1-9][0-9]{0,15}$/;
const DECIMAL_PATTERN = /^[0-9]{1,6}$/;
const PNG_CACHE_SIZE = 256;

export function ipBucket(address: string | undefined): string {
  return `ip:${address ?? 'unknown'}`;
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    [RATE_LIMIT_REMAINING_HEADER]: String(state.remaining),
    [RATE_LIMIT_RESET_HEADER]: String(resetHeaderValue(state)),
    'X-RateLimit-Limit': String(state.limit),
  };
}

/** A raw HTTP/1.1 JSON response, for places where there is no reply object (socket-level errors). */
export function rawJsonResponse(status: number, reason: string, body: unknown, headers: Record<string, string>): string {
  const json = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${json}`;
}

/**
 * Sends a last answer on a connection the HTTP parser gave up on. `end` (not `destroy`) so the
 * bytes are flushed through TLS; the timer covers a peer that never closes its side.
 */
export function answerAndClose(socket: Socket, response: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(response);
  setTimeout(() => socket.destroy(), 2000).unref();
}

function parseFeedId(raw: unknown): number {
  const text = typeof raw === 'string' ? raw : '';
  const parsed = FEED_ID_PATTERN.test(text) ? FeedIdSchema.safeParse(text) : undefined;
  if (!parsed?.success) {
    throw new ApiError(400, 'invalid_request', 'Parámetros no válidos en la solicitud', [
      { campo: 'id', mensaje: 'id debe ser un entero positivo' },
    ]);
  }
  return parsed.data;
}

const FRAMEWORK_ERROR_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_content_type', 'El cuerpo debe ser JSON (Content-Type: application/json)'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['body_too_large', 'El cuerpo de la solicitud es demasiado grande'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'El cuerpo JSON está vacío'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'El cuerpo no es JSON válido'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 'Content-Length no coincide con el cuerpo'],
};

export async function buildApp(deps: AppDeps) {
  const { store, limiter, clock, logger } = deps;
  const rates = new WeakMap<FastifyRequest, RateLimitState>();
  const identities = new WeakMap<FastifyRequest, KeyIdentity>();
  /** One freshness check per request (in authenticate), shared by the handler's cached reads. */
  const freshReads = new WeakMap<FastifyRequest, FreshReads>();
  const routeScopes = new Map<string, Scope>();
  const pngCache = new Map<string, Buffer>();
  const openApiDocument = buildOpenApiDocument();

  const httpLog = logger.child({ layer: 'http' });

  /** Key → limit → plan; returns the identity or throws the matching ApiError. */
  async function authenticate(request: FastifyRequest): Promise<KeyIdentity> {
    const bearer = parseBearer(request.headers.authorization);
    let identity: KeyIdentity | undefined;
    if (bearer.kind === 'key') {
      const reads = await store.fresh();
      freshReads.set(request, reads);
      identity = await reads.keyByHash(hashApiKey(bearer.key));
    }
    if (!identity) {
      // Unknown callers spend a per-IP budget, so guessing keys is rate limited too.
      const rate = limiter.hit(ipBucket(request.ip));
      rates.set(request, rate);
      if (!rate.allowed) throw rateLimited(rate);
      if (bearer.kind === 'missing') {
        throw new ApiError(401, 'missing_api_key', 'Falta la cabecera Authorization: Bearer <API_KEY>');
      }
      throw new ApiError(401, 'invalid_api_key', 'La clave de API no es válida');
    }
    const rate = limiter.hit(`key:${identity.keyHash}`, identity.rateLimit ?? undefined);
    rates.set(request, rate);
    identities.set(request, identity);
    if (!rate.allowed) throw rateLimited(rate);
    if (identity.plan !== 'server') {
      throw new ApiError(403, 'plan_required', `La API solo está disponible en el plan server (plan actual: ${identity.plan})`);
    }
    return identity;
  }

  function rateLimited(rate: RateLimitState): ApiError {
    const seconds = Math.max(1, Math.ceil((rate.resetAtMs - clock.now()) / 1000));
    return new ApiError(429, 'rate_limited', `Límite de ${rate.limit} solicitudes por minuto superado; reintenta en ${seconds} s`);
  }

  function identityOf(request: FastifyRequest): KeyIdentity {
    const identity = identities.get(request);
    if (!identity) throw new ApiError(500, 'internal_error', 'Error interno');
    return identity;
  }

  function rateFor(request: FastifyRequest): RateLimitState {
    return rates.get(request) ?? limiter.peek(ipBucket(request.ip));
  }

  function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
    const rate = rateFor(request);
    if (error.status === 401) {
      reply.header('WWW-Authenticate', `Bearer realm="feed-api", error="invalid_token"`);
    }
    if (error.status === 429) {
      reply.header('Retry-After', String(Math.max(1, Math.ceil((rate.resetAtMs - clock.now()) / 1000))));
    }
    return reply.code(error.status).headers(rateLimitHeaders(rate)).send(error.toBody());
  }

  const app = Fastify({
    loggerInstance: httpLog,
    // Per-request lines come from the onResponse hook below, without headers or query strings.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit,
    serverFactory: (handler) => deps.createServer(handler),
    // Reached for malformed URLs and over-long params; still authenticate first, as every other request.
    frameworkErrors: (error, request, reply) => {
      void authenticate(request).then(
        () => sendError(request, reply, new ApiError(400, 'bad_request', `URL no válida (${error.code})`)),
        (err: unknown) => sendError(request, reply, err instanceof ApiError ? err : new ApiError(500, 'internal_error', 'Error interno')),
      );
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const rate = limiter.hit(ipBucket(socket.remoteAddress));
      answerAndClose(socket, rawJsonResponse(400, 'Bad Request', errorBody('bad_request', 'Solicitud HTTP mal formada'), rateLimitHeaders(rate)));
    },
  });

  app.addHook('onRequest', async (request) => {
    const pattern = request.routeOptions.url;
    if (pattern !== undefined && PUBLIC_ROUTES.has(pattern)) {
      rates.set(request, limiter.peek(ipBucket(request.ip)));
      return;
    }
    await authenticate(request);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const scope = pattern === undefined ? undefined : routeScopes.get(`${method} ${pattern}`);
    const identity = identityOf(request);
    if (scope && !identity.scopes.includes(scope)) {
      throw new ApiError(403, 'missing_scope', `La clave no tiene el alcance ${scope}, necesario para ${method} ${pattern ?? ''}`);
    }
  });

  // Callback-style hooks: they run on every response, and an async hook costs a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader(RATE_LIMIT_REMAINING_HEADER)) reply.headers(rateLimitHeaders(rateFor(request)));
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    if (httpLog.isLevelEnabled('debug')) {
      httpLog.debug(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          path: request.url.split('?')[0]?.slice(0, 200),
          status: reply.statusCode,
          guild: identities.get(request)?.guildId,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    }
    done();
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      if (error.status >= 500) httpLog.error({ err: error }, 'internal error');
      return sendError(request, reply, error);
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const known = error.code ? FRAMEWORK_ERROR_CODES[error.code] : undefined;
      const [codigo, mensaje] = known ?? (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
        ? ['invalid_json', 'El cuerpo no es JSON válido']
        : ['bad_request', 'Solicitud no válida']);
      return sendError(request, reply, new ApiError(400, codigo as ErrorCode, mensaje));
    }
    httpLog.error({ err: error, route: request.routeOptions.url }, 'internal error');
    return sendError(request, reply, new ApiError(500, 'internal_error', 'Error interno'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return sendError(request, reply, new ApiError(404, 'not_found', `No existe la ruta ${request.method} ${path.slice(0, 100)}`));
  });

  // ─── API routes ─────────────────────────────────────────────────────────────────────────────

  const toFastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');
  for (const route of Object.values(ROUTES)) {
    routeScopes.set(`${route.method} ${toFastifyPath(route.path)}`, route.scope);
  }

  const postUrls = (code: string): { mediaUrl: string; postUrl: string } => ({
    mediaUrl: `${deps.baseUrl()}/media/${code}.png`,
    postUrl: `${deps.baseUrl()}/p/${code}`,
  });

  const toPost = (post: PostRecord): Post => ({
    id: post.code,
    tipo: post.tipo,
    caption: post.caption,
    ...postUrls(post.code),
    publicadoEn: post.publicadoEn,
    publicadoDiscord: post.publicadoDiscord,
  });

  /**
   * The validated, serialized GET /feeds body per cached feed list (a new list is a new key, so
   * this follows the read cache's invalidation) and plan. Same bytes as serializing each time.
   */
  const feedListBodies = new WeakMap<readonly FeedRecord[], Map<string, string>>();

  app.get(toFastifyPath(ROUTES.listFeeds.path), async (request, reply) => {
    const identity = identityOf(request);
    const feeds = await (freshReads.get(request) ?? (await store.fresh())).feeds(identity.guildId);
    let bodies = feedListBodies.get(feeds);
    let body = bodies?.get(identity.plan);
    if (body === undefined) {
      const items: FeedListItem[] = feeds.map((feed) => ({
        id: feed.id,
        cuenta: feed.cuenta,
        canal: feed.canalId,
        estado: feed.estado,
        tipos: [...feed.tipos],
        filtros: feed.filtros.length,
        ultimoPost: feed.ultimoPost,
      }));
      body = JSON.stringify(ROUTES.listFeeds.response.parse({ feeds: items, total: items.length, plan: identity.plan }));
      if (!bodies) feedListBodies.set(feeds, (bodies = new Map()));
      bodies.set(identity.plan, body);
    }
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.post(toFastifyPath(ROUTES.createFeed.path), async (request, reply) => {
    const identity = identityOf(request);
    const parsed = ROUTES.createFeed.body.safeParse(request.body);
    if (!parsed.success) throw validationError('body', parsed.error);
    const input = parsed.data;
    const result = await store.createFeed(
      identity.guildId,
      { cuenta: input.cuenta, canalId: input.canalId, tipos: input.tipos, filtros: input.filtros, creado: new Date(clock.now()).toISOString() },
      deps.maxFeedsPerServer,
    );
    if (result.kind === 'limit') {
      throw new ApiError(400, 'feed_limit', `Este servidor ya tiene el máximo de ${deps.maxFeedsPerServer} feeds`);
    }
    if (result.kind === 'duplicate') {
      throw new ApiError(400, 'duplicate_feed', `Ya existe un feed de @${input.cuenta} hacia el canal ${input.canalId}`, [
        { campo: 'cuenta', mensaje: 'ya existe un feed de esta cuenta hacia este canal' },
      ]);
    }
    if (result.kind !== 'created') throw new ApiError(500, 'internal_error', 'Error interno');
    const { feed } = result;
    reply.code(201);
    return ROUTES.createFeed.response.parse({
      id: feed.id,
      cuenta: feed.cuenta,
      canalId: feed.canalId,
      estado: feed.estado,
      creado: feed.creado,
    });
  });

  app.delete(toFastifyPath(ROUTES.deleteFeed.path), async (request) => {
    const identity = identityOf(request);
    const id = parseFeedId((request.params as Record<string, unknown>).id);
    if (!(await store.deleteFeed(identity.guildId, id))) throw feedNotFound(id);
    return ROUTES.deleteFeed.response.parse({ ok: true, mensaje: `Feed ${id} eliminado` });
  });

  app.get(toFastifyPath(ROUTES.listPosts.path), async (request) => {
    const identity = identityOf(request);
    const id = parseFeedId((request.params as Record<string, unknown>).id);
    const rawQuery = { ...(request.query as Record<string, unknown>) };
    // Only plain decimal digits count as an integer here ("1e1" or "0x10" would coerce otherwise).
    if (rawQuery.limite !== undefined && !(typeof rawQuery.limite === 'string' && DECIMAL_PATTERN.test(rawQuery.limite))) {
      throw new ApiError(400, 'invalid_request', 'Parámetros no válidos en la solicitud', [
        { campo: 'limite', mensaje: 'limite debe ser un entero entre 1 y 50' },
      ]);
    }
    const query = PostsQuerySchema.safeParse({ limite: rawQuery.limite, tipo: rawQuery.tipo });
    if (!query.success) throw validationError('query', query.error);
    if (!(await store.getFeed(identity.guildId, id))) throw feedNotFound(id);
    const posts = await store.listPosts(identity.guildId, id, query.data.limite, query.data.tipo);
    return ROUTES.listPosts.response.parse({ posts: posts.map(toPost) });
  });

  app.get(toFastifyPath(ROUTES.getStats.path), async (request) => {
    const identity = identityOf(request);
    const now = clock.now();
    const stats = await store.stats(
      identity.guildId,
      new Date(startOfUtcDay(now)).toISOString(),
      new Date(startOfUtcIsoWeek(now)).toISOString(),
    );
    return ROUTES.getStats.response.parse({ servidor: identity.guildId, plan: identity.plan, ...stats });
  });

  // ─── Public routes ──────────────────────────────────────────────────────────────────────────

  app.get('/openapi.json', async () => openApiDocument);
  app.get('/health', async () => ({ ok: true }));

  app.get('/media/:file', async (request, reply) => {
    const file = String((request.params as Record<string, unknown>).file);
    const match = /^([0-9A-Za-z]{11})\.(png|svg)$/.exec(file);
    const post = match?.[1] ? await store.getPostByCode(match[1]) : undefined;
    if (!match || !post) throw new ApiError(404, 'not_found', 'No existe esa imagen');
    reply.header('Cache-Control', 'public, max-age=86400');
    if (match[2] === 'svg') return reply.type('image/svg+xml').send(renderSvg(post));
    let png = pngCache.get(post.code);
    if (!png) {
      png = renderPng(post.code, post.tipo);
      if (pngCache.size >= PNG_CACHE_SIZE) pngCache.delete(pngCache.keys().next().value as string);
      pngCache.set(post.code, png);
    }
    return reply.type('image/png').send(png);
  });

  app.get('/p/:code', async (request, reply) => {
    const code = String((request.params as Record<string, unknown>).code);
    const post = POST_CODE_PATTERN.test(code) ? await store.getPostByCode(code) : undefined;
    if (!post) throw new ApiError(404, 'not_found', 'No existe esa publicación');
    return reply.type('text/html; charset=utf-8').send(renderPostPage(post, postUrls(post.code).mediaUrl));
  });

  await app.ready();
  return app;
}

export type SandboxApp = Awaited<ReturnType<typeof buildApp>>;
