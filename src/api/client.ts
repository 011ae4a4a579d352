/**
 * The bot's client for the feed REST API (@feedbot/feed-api-contract; `spec/feed-api.md` of the
 * shared spec): one method per route, checking its input and keeping the per-guild GET /feeds
 * cache (for autocomplete) in step with creates and deletes. Sending — rate gate, retries, deadline,
 * response validation, sharing of identical GETs, errors, response events — is the request
 * layer's job (request.ts); probing a key is key-probe.ts's.
 */
import { z } from 'zod';
import {
  CreateFeedRequestSchema,
  type ContentKind,
  type CreateFeedRequest,
  type CreateFeedResponse,
  type DeleteFeedResponse,
  type FeedListResponse,
  type PostsResponse,
  type Stats,
} from '@feedbot/feed-api-contract';
import type { Logger } from '../logger.js';
import { FeedApiError, NotFoundError } from './errors.js';
import { FeedsCache, type CacheLookupListener, type FeedsCacheStore } from './feeds-cache.js';
import type { GateSnapshot } from './gate.js';
import { FeedApiRequester, hashApiKey, type RequesterOptions } from './request.js';
import { responseLogger } from './request-log.js';
import type { ResponseListener } from './response-events.js';
import type { SharedStateBackend } from '../replicas/shared-state.js';
import { AuthSchema, IdSchema, PostsQueryInputSchema, parseInput } from './validation.js';
import { uniqueFeeds } from './unique-feeds.js';

export interface ApiAuth {
  apiKey: string;
  guildId: string;
}

export interface FeedApiClientOptions extends RequesterOptions {
  /** GET /feeds cache lifetime per guild. Default 30_000; 0 disables the cache. */
  feedsCacheTtlMs?: number;
  /** Bound on guilds in the feeds cache and on keys in the rate gate. Default 10_000. */
  maxTrackedEntries?: number;
  /** When given, every attempt is logged at debug level (a subscriber of `onResponse`). */
  logger?: Logger;
  /** Where the rate gate and the feeds cache live when replicas share them; this process when absent. */
  sharedState?: SharedStateBackend;
}

const CacheOptionsSchema = z.object({
  feedsCacheTtlMs: z.number().int().min(0).max(10 * 60_000).default(30_000),
  maxTrackedEntries: z.number().int().positive().default(10_000),
});

export class FeedApiClient {
  /** The request layer under the route methods, for callers that compose their own calls (key probing). */
  readonly requester: FeedApiRequester;
  private readonly cache: FeedsCacheStore;
  private readonly logger: Logger | undefined;

  constructor(options: FeedApiClientOptions) {
    const o = CacheOptionsSchema.parse({ feedsCacheTtlMs: options.feedsCacheTtlMs, maxTrackedEntries: options.maxTrackedEntries });
    this.requester = new FeedApiRequester(options);
    const now = options.now ?? Date.now;
    this.cache =
      options.sharedState?.feedsCache({ now, ttlMs: o.feedsCacheTtlMs, fillLeaseMs: this.requester.totalTimeoutMs }) ??
      new FeedsCache({ ttlMs: o.feedsCacheTtlMs, maxEntries: o.maxTrackedEntries, now });
    this.logger = options.logger;
    if (options.logger) this.onResponse(responseLogger(options.logger));
  }

  /** Calls `listener` after every attempt (and every local refusal); returns the unsubscribe. */
  onResponse(listener: ResponseListener): () => void {
    return this.requester.onResponse(listener);
  }

  /** Calls `listener` after every feeds cache lookup (hit or miss); returns the unsubscribe. */
  onCacheLookup(listener: CacheLookupListener): () => void {
    return this.cache.onLookup(listener);
  }

  /**
   * GET /feeds. Served from the guild's cache unless `fresh`; a network answer refills it. A
   * replica that misses while another one fetches the guild's list waits for that answer. An id
   * the API lists twice is kept once, the first (unique-feeds.ts), before the cache keeps it.
   */
  async listFeeds(auth: ApiAuth, opts?: { fresh?: boolean }): Promise<FeedListResponse> {
    const a = parseInput(AuthSchema, auth, 'listFeeds');
    const keyHash = hashApiKey(a.apiKey);
    if (!opts?.fresh) {
      const cached = await this.cache.lookup('list', a.guildId, keyHash);
      if (cached) return cached;
    }
    const fill = await this.cache.beginFill(a.guildId, keyHash);
    let value: FeedListResponse | undefined;
    try {
      const shared = opts?.fresh ? undefined : await this.cache.sharedFill(fill);
      if (shared) return shared;
      const { list, repeatedIds } = uniqueFeeds(await this.requester.send({ route: 'listFeeds', apiKey: a.apiKey, path: '/feeds' }));
      if (repeatedIds.length > 0) this.logger?.warn({ guildId: a.guildId, repeatedIds }, 'feed api listed feed ids more than once: the first of each is kept');
      value = list;
      return value;
    } finally {
      await this.cache.completeFill(fill, value);
    }
  }

  /** The guild's cached feed list, if fresh enough. Never sends: for autocomplete. */
  cachedFeeds(guildId: string): Promise<FeedListResponse | undefined> {
    return this.cache.lookup('autocomplete', guildId);
  }

  /** POST /feeds. Never retried once it may have reached the server. Invalidates the guild cache. */
  async createFeed(auth: ApiAuth, body: CreateFeedRequest): Promise<CreateFeedResponse> {
    const a = parseInput(AuthSchema, auth, 'createFeed');
    const parsed = parseInput(CreateFeedRequestSchema, body, 'createFeed', 'body');
    return this.mutating(a, () => this.requester.send({ route: 'createFeed', apiKey: a.apiKey, path: '/feeds', body: parsed }));
  }

  /**
   * DELETE /feeds/{id}. Invalidates the guild cache whatever the answer (404 included). A retry
   * answered 404 after an attempt that may have reached the API (a time-out, a reset, a 5xx) is
   * a success: that attempt deleted the feed. A 404 to the first attempt is still NotFoundError.
   */
  async deleteFeed(auth: ApiAuth, id: number): Promise<DeleteFeedResponse> {
    const a = parseInput(AuthSchema, auth, 'deleteFeed');
    const feedId = parseInput(IdSchema, id, 'deleteFeed', 'id');
    return this.mutating(a, async () => {
      try {
        return await this.requester.send({ route: 'deleteFeed', apiKey: a.apiKey, path: `/feeds/${feedId}`, feedId });
      } catch (err) {
        // The API's own words were never received; `mensaje` is only shown when `ok` is false.
        if (err instanceof NotFoundError && err.afterAttemptThatMayHaveArrived) return { ok: true, mensaje: '' };
        throw err;
      }
    });
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
    return this.requester.send({ route: 'listPosts', apiKey: a.apiKey, path: `/feeds/${feedId}/posts${qs}`, feedId });
  }

  /** GET /stats. */
  async getStats(auth: ApiAuth): Promise<Stats> {
    const a = parseInput(AuthSchema, auth, 'getStats');
    return this.requester.send({ route: 'getStats', apiKey: a.apiKey, path: '/stats' });
  }

  /** Unreserved budget and window end for a key, as last learnt; nulls when unknown. */
  gateState(apiKey: string): Promise<GateSnapshot> {
    return this.requester.gateState(apiKey);
  }

  /** Drops the gate state and cached lists of a removed or replaced key. */
  async forgetKey(apiKey: string): Promise<void> {
    this.requester.unshare(apiKey, '/feeds');
    await Promise.all([this.requester.forgetKey(apiKey), this.cache.invalidateKey(hashApiKey(apiKey))]);
  }

  /** Runs a create/delete and then invalidates the guild's list, unless nothing was sent. */
  private async mutating<T>(auth: ApiAuth, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      await this.invalidate(auth);
      return result;
    } catch (err) {
      // A time-out or 5xx may still have changed the list; only a refusal before sending did not.
      if (!(err instanceof FeedApiError) || err.attempts > 0) await this.invalidate(auth);
      throw err;
    }
  }

  private async invalidate(auth: ApiAuth): Promise<void> {
    // A list already in flight started before the change: later callers must not join it.
    this.requester.unshare(auth.apiKey, '/feeds');
    await this.cache.invalidateGuild(auth.guildId);
  }
}
