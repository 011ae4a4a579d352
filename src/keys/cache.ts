/**
 * A small in-process LRU whose entries are each trusted for `ttlMs` at most: the key store's
 * decrypted keys (KeyCache) and the per-guild settings (src/settings/store.ts). Values are copied
 * in, so a caller changing what it stored cannot change the cache.
 */
import type { StoredKey } from './schema.js';

interface CacheEntry<V> {
  value: V;
  expiresAt: number;
}

export const copyKey = (key: StoredKey): StoredKey => ({
  ...key,
  scopes: [...key.scopes],
  ...(key.unknownScopes ? { unknownScopes: [...key.unknownScopes] } : {}),
});

export class TtlCache<V> {
  private readonly entries = new Map<string, CacheEntry<V>>();
  /**
   * Writes drop every expired entry, at most once per `ttlMs` (one pass over at most `size`): an
   * expired entry left until it is read again or pushed out by `size` newer ones would keep a
   * burst of guilds' values, up to `size`, in memory for good (memory per server).
   */
  private nextSweepAt = 0;

  constructor(
    private readonly size: number,
    private readonly ttlMs: number,
    private readonly copy: (value: V) => V,
  ) {}

  get(id: string): V | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(id);
      return undefined;
    }
    // Re-insert: Map keeps insertion order, so the first id is the least recently used.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.value;
  }

  put(id: string, value: V): void {
    if (this.size === 0 || this.ttlMs === 0) return;
    const now = Date.now();
    if (now >= this.nextSweepAt) {
      for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
      this.nextSweepAt = now + this.ttlMs;
    }
    this.entries.delete(id);
    this.entries.set(id, { value: this.copy(value), expiresAt: now + this.ttlMs });
    while (this.entries.size > this.size) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Entries held, expired or not (tests). */
  get held(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The key store's cache of decrypted keys, by guild id. */
export class KeyCache extends TtlCache<StoredKey> {
  constructor(size: number, ttlMs: number) {
    super(size, ttlMs, copyKey);
  }
}
