/**
 * What the key store and the per-guild settings store (src/settings/store.ts) share around their
 * in-process caches. Writes for one guild run one after another, in call order (the drivers do
 * not order them). A read fills the cache only if no write for that guild and no change announced
 * by another process overlapped it (the epoch), so it never resurrects a value just replaced.
 * Writes are announced to the other processes without making the caller wait, and everything in
 * flight can be waited for before the backend closes.
 */
import type { KeyBackend } from './backend.js';
import type { TtlCache } from './cache.js';

export class GuildWrites<V> {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Bumped at the start and end of every write and by every change from elsewhere. */
  private epoch = 0;

  constructor(
    private readonly cache: TtlCache<V>,
    private readonly db: Pick<KeyBackend, 'announce'>,
    /** Told when an announcement failed: the other processes only see the change after their cache TTL. */
    private readonly onLostAnnouncement: (guildId: string, error: unknown) => void,
  ) {}

  cached(guildId: string): V | undefined {
    return this.cache.get(guildId);
  }

  /** Runs `load`, caching what it returns unless a write or another process's change overlapped it. */
  async load<T extends V | undefined>(guildId: string, load: () => Promise<T>): Promise<T> {
    const epoch = this.epoch;
    const value = await this.track(load());
    if (value !== undefined && this.epoch === epoch && !this.chains.has(guildId)) this.cache.put(guildId, value);
    return value;
  }

  /** What a write just stored, for this process's next reads. */
  put(guildId: string, value: V): void {
    this.cache.put(guildId, value);
  }

  /** Runs `op` after the guild's earlier writes; its cache entry is dropped meanwhile. */
  serialized<T>(guildId: string, op: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(guildId) ?? Promise.resolve();
    const run = previous.then(async () => {
      this.epoch += 1;
      this.cache.delete(guildId);
      try {
        return await op();
      } finally {
        this.epoch += 1;
      }
    });
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(guildId, tail);
    void tail.then(() => {
      if (this.chains.get(guildId) === tail) this.chains.delete(guildId);
    });
    return this.track(run);
  }

  /** Another process changed this guild (every guild when undefined): drop what is cached. */
  forget(guildId?: string): void {
    this.epoch += 1;
    if (guildId === undefined) this.cache.clear();
    else this.cache.delete(guildId);
  }

  /**
   * Tells the other processes, after the write is stored, without making the caller wait for it:
   * the guild's own interactions reach this process (its shard's), so nobody is waiting on the
   * others, and awaiting the extra round trip halved write throughput on PostgreSQL and Redis
   * (bench scenario 6). settle() still waits for it. A lost announcement only delays the other
   * processes by their cache TTL: reported, not thrown.
   */
  announce(guildId: string): void {
    void this.track(this.db.announce(guildId).catch((error: unknown) => this.onLostAnnouncement(guildId, error)));
  }

  track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const forget = () => this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /** Waits for every write, read and announcement in flight, then empties the cache (before closing). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    this.cache.clear();
  }
}
