/**
 * State the replicas of the bot share when several of them answer the same guilds (REDIS_URL):
 * the per-key rate gate, the per-guild feed list cache, the replay guard and the open
 * confirmations. Without a backend, each process keeps them in memory (one replica: the embedded
 * default).
 */
import type { RateGate, SharedGateOptions } from '../api/gate.js';
import type { FeedsCacheStore } from '../api/feeds-cache.js';
import type { SeenInteractions } from '../http/replay.js';
import type { PendingStore } from '../interactions/pending.js';

export interface SharedCacheOptions {
  /** Wall clock (epoch ms) the entries' lifetime is read on. */
  now: () => number;
  /** Entry lifetime; 0 stores nothing. */
  ttlMs: number;
  /** How long another replica waits for a fill before it sends its own request: one whole call. */
  fillLeaseMs: number;
}

export interface SharedStateBackend {
  /** Where the state lives, without credentials, for logs. */
  readonly where: string;
  rateGate(opts: SharedGateOptions): RateGate;
  feedsCache(opts: SharedCacheOptions): FeedsCacheStore;
  /** The HTTP transport's replay guard: interaction ids already received by any replica. */
  seenInteractions(): SeenInteractions;
  /** Open confirmations (delete, bulk delete, import): asked on one replica, pressed on any. */
  pendingConfirmations(): PendingStore;
  close(): Promise<void>;
}
