/** The key store's in-process LRU of decrypted keys, each trusted for `ttlMs` at most. */
import type { StoredKey } from './schema.js';

interface CacheEntry {
  key: StoredKey;
  expiresAt: number;
}

export const copyKey = (key: StoredKey): StoredKey => ({
  ...key,
  scopes: [...key.scopes],
  ...(key.unknownScopes ? { unknownScopes: [...key.unknownScopes] } : {}),
});

export class KeyCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(
    private readonly size: number,
    private readonly ttlMs: number,
  ) {}

  get(guildId: string): StoredKey | undefined {
    const entry = this.entries.get(guildId);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(guildId);
      return undefined;
    }
    // Re-insert: Map keeps insertion order, so the first key is the least recently used.
    this.entries.delete(guildId);
    this.entries.set(guildId, entry);
    return entry.key;
  }

  put(guildId: string, key: StoredKey): void {
    if (this.size === 0 || this.ttlMs === 0) return;
    this.entries.delete(guildId);
    this.entries.set(guildId, { key: copyKey(key), expiresAt: Date.now() + this.ttlMs });
    while (this.entries.size > this.size) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(guildId: string): void {
    this.entries.delete(guildId);
  }

  clear(): void {
    this.entries.clear();
  }
}
