/**
 * The feed API on fastify: authentication, limits and scopes in one onRequest hook (gate.ts, so
 * they run before any body is parsed), then the routes (api-routes.ts, public-routes.ts), and
 * every error answered in the documented body shape with the rate-limit headers.
 *
 * Order of checks (docs/api-decisions.md): plain HTTP (front door) → key (401) → rate limit (429)
 * → plan (403 plan_required) → scope (403 missing_scope) → validation (400) → existence (404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { RATE_LIMIT_REMAINING_HEADER, RATE_LIMIT_RESET_HEADER } from '@feedbot/feed-api-contract';
import type { Logger } from './log.js';
import { registerApiRoutes } from './api-routes.js';
import type { Clock } from './clock.js';
import { ApiError, errorBody, type ErrorCode } from './errors.js';
import { GARBAGE_BODY, type ApiFaultRule, type ApiFaults } from './faults.js';
import { RequestGate } from './gate.js';
import { PUBLIC_ROUTES, registerPublicRoutes } from './public-routes.js';
import { ipBucket, rateLimitHeaders, type FixedWindowLimiter } from './rate-limit.js';
import { answerAndClose, rawJsonResponse } from './raw-response.js';
import type { RequestCount } from './request-count.js';
import type { SandboxStore } from './store.js';

export interface AppDeps {
  store: SandboxStore;
  limiter: FixedWindowLimiter;
  clock: Clock;
  logger: Logger;
  /** The sandbox's own https URL, for mediaUrl/postUrl (known once it listens). */
  baseUrl: () => string;
  maxFeedsPerServer: number;
  bodyLimit: number;
  /** Counts every answered request (request-count.ts), for tests. */
  requests?: RequestCount;
  /** Faults a test switched on (faults.ts), and the count of the sandbox's own 429s. */
  faults?: ApiFaults;
  createServer: (handler: (req: IncomingMessage, res: ServerResponse) => void) => HttpsServer;
}

const FRAMEWORK_ERROR_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_content_type', 'El cuerpo debe ser JSON (Content-Type: application/json)'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['body_too_large', 'El cuerpo de la solicitud es demasiado grande'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'El cuerpo JSON está vacío'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'El cuerpo no es JSON válido'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 'Content-Length no coincide con el cuerpo'],
};

/** A client error fastify raised (bad JSON, wrong content type, …) as the documented 400. */
function frameworkClientError(error: FastifyError): ApiError {
  const known = error.code ? FRAMEWORK_ERROR_CODES[error.code] : undefined;
  const [codigo, mensaje] = known ?? (error instanceof SyntaxError ? ['invalid_json', 'El cuerpo no es JSON válido'] : ['bad_request', 'Solicitud no válida']);
  return new ApiError(400, codigo as ErrorCode, mensaje);
}

export async function buildApp(deps: AppDeps) {
  const { store, limiter, clock, logger } = deps;
  const gate = new RequestGate(store, limiter, clock, PUBLIC_ROUTES);
  const httpLog = logger.child({ layer: 'http' });
  // Widened so the instance has fastify's default logger type, the one the route modules take.
  const fastifyLog: FastifyBaseLogger = httpLog;

  function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
    const rate = gate.rateFor(request);
    if (error.status === 401) {
      reply.header('WWW-Authenticate', `Bearer realm="feed-api", error="invalid_token"`);
    }
    if (error.status === 429) {
      reply.header('Retry-After', String(gate.retryAfterSeconds(rate)));
    }
    return reply.code(error.status).headers(rateLimitHeaders(rate)).send(error.toBody());
  }

  const app = Fastify({
    loggerInstance: fastifyLog,
    // Per-request lines come from the onResponse hook below, without headers or query strings.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit,
    serverFactory: (handler) => deps.createServer(handler),
    // Reached for malformed URLs and over-long params; still authenticate first, as every other request.
    frameworkErrors: (error, request, reply) => {
      void gate.authenticate(request).then(
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

  const struck = new WeakMap<FastifyRequest, ApiFaultRule>();
  const faults = deps.faults;
  if (faults) {
    // Before the gate: an injected failure spends none of the caller's budget, as a proxy's would not.
    app.addHook('onRequest', async (request, reply) => {
      const pattern = request.routeOptions.url;
      if (pattern === undefined || PUBLIC_ROUTES.has(pattern)) return;
      const rule = faults.pick();
      if (!rule) return;
      struck.set(request, rule);
      if (rule.kind === 'slow') return void (await new Promise((r) => setTimeout(r, rule.delayMs)));
      // A 429 is a refusal: the API did nothing, whatever phase the rule names.
      if (rule.phase === 'after' && rule.kind !== 'rate_limited') return;
      return injectBefore(rule, request, reply);
    });
  }

  function injectBefore(rule: ApiFaultRule, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    switch (rule.kind) {
      case 'rate_limited': {
        const resetAt = Math.ceil((clock.now() + rule.retryAfterSeconds * 1000) / 1000);
        return reply
          .code(429)
          .headers({ 'Retry-After': String(rule.retryAfterSeconds), [RATE_LIMIT_REMAINING_HEADER]: '0', [RATE_LIMIT_RESET_HEADER]: String(resetAt), 'X-RateLimit-Limit': '100' })
          .send(errorBody('rate_limited', `Demasiadas solicitudes; reintenta en ${rule.retryAfterSeconds} s`));
      }
      case 'reset':
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      case 'garbage':
        return reply.code(200).type('text/html').send(GARBAGE_BODY);
      default:
        return reply.code(500).send(errorBody('internal_error', 'Error interno'));
    }
  }

  app.addHook('onRequest', (request) => gate.admit(request));

  // Callback-style hooks: they run on every response, and an async hook costs a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader(RATE_LIMIT_REMAINING_HEADER)) reply.headers(rateLimitHeaders(gate.rateFor(request)));
    const rule = struck.get(request);
    if (rule?.phase !== 'after' || rule.kind === 'slow' || rule.kind === 'rate_limited') return done(null, payload);
    // The work is done; what the client hears of it is not.
    if (rule.kind === 'reset') {
      request.raw.socket.destroy();
      return done(null, payload);
    }
    if (rule.kind === 'garbage') {
      reply.type('text/html');
      return done(null, GARBAGE_BODY);
    }
    reply.code(502);
    done(null, JSON.stringify(errorBody('internal_error', 'Error interno')));
  });

  app.addHook('onResponse', (request, reply, done) => {
    deps.requests?.record(gate.guildOf(request));
    if (reply.statusCode === 429 && !struck.has(request)) faults?.recordOwnRateLimit(gate.guildOf(request));
    if (httpLog.isLevelEnabled('debug')) {
      httpLog.debug(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          path: request.url.split('?')[0]?.slice(0, 200),
          status: reply.statusCode,
          guild: gate.guildOf(request),
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
    if ((error.statusCode ?? 500) < 500) return sendError(request, reply, frameworkClientError(error));
    httpLog.error({ err: error, route: request.routeOptions.url }, 'internal error');
    return sendError(request, reply, new ApiError(500, 'internal_error', 'Error interno'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return sendError(request, reply, new ApiError(404, 'not_found', `No existe la ruta ${request.method} ${path.slice(0, 100)}`));
  });

  registerApiRoutes(app, { store, gate, clock, baseUrl: deps.baseUrl, maxFeedsPerServer: deps.maxFeedsPerServer });
  registerPublicRoutes(app, { store, baseUrl: deps.baseUrl });

  await app.ready();
  return app;
}

export type SandboxApp = Awaited<ReturnType<typeof buildApp>>;
