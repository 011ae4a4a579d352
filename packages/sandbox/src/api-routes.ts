/**
 * The feed API's routes (ROUTES in the contract): validation with the contract's schemas, then the
 * store, then the response schema. Authentication, limits, plan and scope were checked before
 * (gate.ts); what is left in the documented order is validation (400), then existence (404).
 */
import type { FastifyInstance } from 'fastify';
import { FeedIdSchema, PostsQuerySchema, ROUTES, type FeedListItem, type Post } from '@feedbot/feed-api-contract';
import { startOfUtcDay, startOfUtcIsoWeek, type Clock } from './clock.js';
import { ApiError, feedNotFound, validationError } from './errors.js';
import { toFastifyPath, type RequestGate } from './gate.js';
import { postLinks } from './public-routes.js';
import type { FeedRecord, PostRecord } from './records.js';
import type { SandboxStore } from './store.js';

export interface ApiRouteDeps {
  store: SandboxStore;
  gate: RequestGate;
  clock: Clock;
  /** The sandbox's own https URL, for mediaUrl/postUrl (known once it listens). */
  baseUrl: () => string;
  maxFeedsPerServer: number;
}

const FEED_ID_PATTERN = /^[1-9][0-9]{0,15}$/;
const DECIMAL_PATTERN = /^[0-9]{1,6}$/;

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

const feedIdParam = (params: unknown): number => parseFeedId((params as Record<string, unknown>).id);

export function registerApiRoutes(app: FastifyInstance, deps: ApiRouteDeps): void {
  const { store, gate, clock } = deps;

  const toPost = (post: PostRecord): Post => ({
    id: post.code,
    tipo: post.tipo,
    caption: post.caption,
    ...postLinks(deps.baseUrl(), post.code),
    publicadoEn: post.publicadoEn,
    publicadoDiscord: post.publicadoDiscord,
  });

  /**
   * The validated, serialized GET /feeds body per cached feed list (a new list is a new key, so
   * this follows the read cache's invalidation) and plan. Same bytes as serializing each time.
   */
  const feedListBodies = new WeakMap<readonly FeedRecord[], Map<string, string>>();

  app.get(toFastifyPath(ROUTES.listFeeds.path), async (request, reply) => {
    const identity = gate.identityOf(request);
    const feeds = await (await gate.readsFor(request)).feeds(identity.guildId);
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
    const identity = gate.identityOf(request);
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
    const identity = gate.identityOf(request);
    const id = feedIdParam(request.params);
    if (!(await store.deleteFeed(identity.guildId, id))) throw feedNotFound(id);
    return ROUTES.deleteFeed.response.parse({ ok: true, mensaje: `Feed ${id} eliminado` });
  });

  app.get(toFastifyPath(ROUTES.listPosts.path), async (request) => {
    const identity = gate.identityOf(request);
    const id = feedIdParam(request.params);
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
    const identity = gate.identityOf(request);
    const now = clock.now();
    const stats = await store.stats(
      identity.guildId,
      new Date(startOfUtcDay(now)).toISOString(),
      new Date(startOfUtcIsoWeek(now)).toISOString(),
    );
    return ROUTES.getStats.response.parse({ servidor: identity.guildId, plan: identity.plan, ...stats });
  });
}
