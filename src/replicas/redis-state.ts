/**
 * REDIS_URL's shared state: one connection for the rate gate, the feeds cache, the replay guard
 * and the open confirmations of this replica, every key under one namespace (several bots may
 * share a server).
 *
 * A single Redis server (or a primary with replicas), not a Cluster: the cache's read script
 * also reads the generation of the key that fetched an entry, a key it only learns from the entry.
 */
import type { Logger } from '../logger.js';
import type { FeedsCacheStore } from '../api/feeds-cache.js';
import type { RateGate, SharedGateOptions } from '../api/gate.js';
import type { SharedCacheOptions, SharedStateBackend } from './shared-state.js';
import { RedisFeedsCache } from './redis-feeds-cache.js';
import { RedisLink } from './redis-link.js';
import { RedisRateGate } from './redis-rate-gate.js';
import type { SeenInteractions } from '../http/replay.js';
import { RedisSeenInteractions } from './redis-seen.js';
import type { PendingStore } from '../interactions/pending.js';
import { RedisPendingStore } from './redis-pending.js';

export class RedisSharedState implements SharedStateBackend {
  constructor(
    readonly link: RedisLink,
    private readonly namespace = 'feedbot',
  ) {}

  /** Starts connecting: a REDIS_URL that cannot be parsed throws; a Redis that is down does not (RedisLink.open). */
  static async open(redisUrl: string, logger: Logger): Promise<RedisSharedState> {
    return new RedisSharedState(await RedisLink.open(redisUrl, logger));
  }

  get where(): string {
    return this.link.where;
  }

  rateGate(opts: SharedGateOptions): RateGate {
    return new RedisRateGate({ ...opts, link: this.link, namespace: this.namespace });
  }

  feedsCache(opts: SharedCacheOptions): FeedsCacheStore {
    return new RedisFeedsCache({ ...opts, link: this.link, namespace: this.namespace });
  }

  seenInteractions(): SeenInteractions {
    return new RedisSeenInteractions(this.link, this.namespace);
  }

  pendingConfirmations(): PendingStore {
    return new RedisPendingStore(this.link, this.namespace);
  }

  close(): Promise<void> {
    return this.link.close();
  }
}
