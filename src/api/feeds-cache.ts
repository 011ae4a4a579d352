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
 */
import type { FeedListResponse } from '@feedbot/feed-api-contract';
import { Observers, type Listener } from '../observers.js';

interface Entry {
  keyHash: string;
  value: FeedListResponse;
  expiresAtMs: number;
}

export interface PendingFill {
  readonly guildId: string;
  readonly keyHash: string;
  cancelled: boolean;
}

/** Who looked the cache up: autocomplete (never sends on a hit) or a list command. */
export type CacheUse = 'autocomplete' | 'list';

export interface CacheLookup {
  use: CacheUse;
  hit: boolean;
}

export type CacheLookupListener = Listener<CacheLookup>;

export interface FeedsCacheOptions {
  ttlMs: number;
  maxEntries?: number;
  now: () => number;
}

export class FeedsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Set<PendingFill>();
  private readonly lookups = new Observers<CacheLookup>('feeds cache lookup');
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: FeedsCacheOptions) {
    this.ttlMs = opts.ttlMs;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now;
  }

  /** The cached list for a guild, whoever's key fetched it; `keyHash` narrows to one key. */
  get(guildId: string, keyHash?: string): FeedListResponse | undefined {
    const e = this.entries.get(guildId);
    if (!e) return undefined;
    if (this.now() >= e.expiresAtMs) {
      this.entries.delete(guildId);
      return undefined;
    }
    if (keyHash !== undefined && e.keyHash !== keyHash) return undefined;
    this.entries.delete(guildId);
    this.entries.set(guildId, e);
    return e.value;
  }

  /** get(), reported to the lookup listeners as a hit or a miss for `use`. */
  lookup(use: CacheUse, guildId: string, keyHash?: string): FeedListResponse | undefined {
    const value = this.get(guildId, keyHash);
    this.lookups.emit({ use, hit: value !== undefined });
    return value;
  }

  /** Calls `listener` after every lookup(); returns the unsubscribe. */
  onLookup(listener: CacheLookupListener): () => void {
    return this.lookups.add(listener);
  }

  beginFill(guildId: string, keyHash: string): PendingFill {
    const fill: PendingFill = { guildId, keyHash, cancelled: false };
    this.pending.add(fill);
    return fill;
  }

  /** Stores the value unless an invalidation cancelled this fill; always ends the fill. */
  completeFill(fill: PendingFill, value: FeedListResponse | undefined): void {
    this.pending.delete(fill);
    if (fill.cancelled || value === undefined || this.ttlMs <= 0) return;
    this.entries.delete(fill.guildId);
    this.entries.set(fill.guildId, { keyHash: fill.keyHash, value, expiresAtMs: this.now() + this.ttlMs });
    this.evict();
  }

  invalidateGuild(guildId: string): void {
    this.entries.delete(guildId);
    for (const f of this.pending) if (f.guildId === guildId) f.cancelled = true;
  }

  invalidateKey(keyHash: string): void {
    for (const [g, e] of this.entries) if (e.keyHash === keyHash) this.entries.delete(g);
    for (const f of this.pending) if (f.keyHash === keyHash) f.cancelled = true;
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
