/**
 * Short-lived per-guild copy of GET /feeds, so autocomplete (one request per keystroke otherwise)
 * does not spend the key's 100-per-minute budget. Entries remember which key (hash) fetched them:
 * a guild whose key was replaced must not be answered from the old key's read.
 *
 * Fills race with invalidations: a list that was in flight while a feed was created must not
 * store its (now stale) answer. A fill is therefore registered when it starts and cancelled by
 * any invalidation of its guild or key that happens before it lands.
 *
 * Lookups are reported to `onLookup` listeners (hit or miss, and for which use), for metrics.
 *
 * `FeedsCache` keeps the entries in this process (one replica, the default); with REDIS_URL the
 * replicas share them (src/replicas/redis-feeds-cache.ts), and a replica that misses while another
 * is fetching the same guild's list waits for that fill instead of sending its own request.
 */
import type { FeedListResponse } from '@feedbot/feed-api-contract';
import { Observers, type Listener } from '../observers.js';

export interface PendingFill {
  readonly guildId: string;
  readonly keyHash: string;
}

/** Who looked the cache up: autocomplete (never sends on a hit) or a list command. */
type CacheUse = 'autocomplete' | 'list';

export interface CacheLookup {
  use: CacheUse;
  hit: boolean;
}

export type CacheLookupListener = Listener<CacheLookup>;

/**
 * The cache as the client sees it. Methods never reject: a store that cannot answer (Redis down)
 * reports a miss, skips the write, and logs it; the API's own answer is always the fallback.
 */
export interface FeedsCacheStore {
  /** The cached list for a guild, whoever's key fetched it; `keyHash` narrows to one key. */
  get(guildId: string, keyHash?: string): Promise<FeedListResponse | undefined>;
  /** get(), reported to the lookup listeners as a hit or a miss for `use`. */
  lookup(use: CacheUse, guildId: string, keyHash?: string): Promise<FeedListResponse | undefined>;
  /** Calls `listener` after every lookup(); returns the unsubscribe. */
  onLookup(listener: CacheLookupListener): () => void;
  /** Registers a fill before its request is sent, so invalidations from then on cancel it. */
  beginFill(guildId: string, keyHash: string): Promise<PendingFill>;
  /**
   * The list another replica was already fetching for this fill's guild and key, once it landed;
   * undefined at once when there is none (always, in one process: identical GETs share a request).
   */
  sharedFill(fill: PendingFill): Promise<FeedListResponse | undefined>;
  /** Stores the value unless an invalidation cancelled this fill; always ends the fill. */
  completeFill(fill: PendingFill, value: FeedListResponse | undefined): Promise<void>;
  invalidateGuild(guildId: string): Promise<void>;
  invalidateKey(keyHash: string): Promise<void>;
}

/** The lookup reporting both stores share. */
export abstract class ReportingFeedsCache implements FeedsCacheStore {
  private readonly lookups = new Observers<CacheLookup>('feeds cache lookup');

  abstract get(guildId: string, keyHash?: string): Promise<FeedListResponse | undefined>;
  abstract beginFill(guildId: string, keyHash: string): Promise<PendingFill>;
  abstract sharedFill(fill: PendingFill): Promise<FeedListResponse | undefined>;
  abstract completeFill(fill: PendingFill, value: FeedListResponse | undefined): Promise<void>;
  abstract invalidateGuild(guildId: string): Promise<void>;
  abstract invalidateKey(keyHash: string): Promise<void>;

  async lookup(use: CacheUse, guildId: string, keyHash?: string): Promise<FeedListResponse | undefined> {
    const value = await this.get(guildId, keyHash);
    this.lookups.emit({ use, hit: value !== undefined });
    return value;
  }

  onLookup(listener: CacheLookupListener): () => void {
    return this.lookups.add(listener);
  }
}

interface Entry {
  keyHash: string;
  value: FeedListResponse;
  expiresAtMs: number;
}

interface MemoryFill extends PendingFill {
  cancelled: boolean;
}

interface FeedsCacheOptions {
  ttlMs: number;
  maxEntries?: number;
  now: () => number;
}

export class FeedsCache extends ReportingFeedsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Set<MemoryFill>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: FeedsCacheOptions) {
    super();
    this.ttlMs = opts.ttlMs;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now;
  }

  get(guildId: string, keyHash?: string): Promise<FeedListResponse | undefined> {
    const e = this.entries.get(guildId);
    if (!e) return Promise.resolve(undefined);
    if (this.now() >= e.expiresAtMs) {
      this.entries.delete(guildId);
      return Promise.resolve(undefined);
    }
    if (keyHash !== undefined && e.keyHash !== keyHash) return Promise.resolve(undefined);
    this.entries.delete(guildId);
    this.entries.set(guildId, e);
    return Promise.resolve(e.value);
  }

  beginFill(guildId: string, keyHash: string): Promise<PendingFill> {
    const fill: MemoryFill = { guildId, keyHash, cancelled: false };
    this.pending.add(fill);
    return Promise.resolve(fill);
  }

  sharedFill(): Promise<FeedListResponse | undefined> {
    return Promise.resolve(undefined);
  }

  completeFill(pending: PendingFill, value: FeedListResponse | undefined): Promise<void> {
    const fill = pending as MemoryFill;
    this.pending.delete(fill);
    if (fill.cancelled || value === undefined || this.ttlMs <= 0) return Promise.resolve();
    this.entries.delete(fill.guildId);
    this.entries.set(fill.guildId, { keyHash: fill.keyHash, value, expiresAtMs: this.now() + this.ttlMs });
    this.evict();
    return Promise.resolve();
  }

  invalidateGuild(guildId: string): Promise<void> {
    this.entries.delete(guildId);
    for (const f of this.pending) if (f.guildId === guildId) f.cancelled = true;
    return Promise.resolve();
  }

  invalidateKey(keyHash: string): Promise<void> {
    for (const [g, e] of this.entries) if (e.keyHash === keyHash) this.entries.delete(g);
    for (const f of this.pending) if (f.keyHash === keyHash) f.cancelled = true;
    return Promise.resolve();
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(): void {
    if (this.entries.size <= this.maxEntries) return;
    const now = this.now();
    for (const [g, e] of this.entries) if (now >= e.expiresAtMs) this.entries.delete(g);
    for (const g of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(g);
    }
  }
}
