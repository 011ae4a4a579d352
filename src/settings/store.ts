/**
 * Per-guild settings (schema.ts) in their own Keyv namespace on the key store's backend
 * (DATABASE_URL: SQLite, PostgreSQL or Redis), in the clear: nothing in them is secret.
 *
 * Reads. Settings are read on every /feed create, delete and list (manager roles, health
 * threshold), so they are kept in a small in-process LRU, invalidated like the key store's cache:
 * a write here updates this process's entry at once; on PostgreSQL and Redis every write is
 * announced and the other processes drop that guild (all guilds when their listener reconnects);
 * and every entry expires after cacheTtlMs, which bounds how long another process's change can go
 * unseen when an announcement is lost or another process writes the same SQLite file. A read that
 * a write or an announcement overlapped does not fill the cache, so it never resurrects what was
 * just replaced (that bookkeeping, shared with the key store, is src/keys/guild-writes.ts).
 *
 * Writes. update() calls for one guild run one after another in this process, each on a fresh
 * read, so none is lost here. Across processes each is a compare-and-swap on the stored envelope
 * (KeyBackend.replaceIf), retried on a fresh read when another process wrote in between: `change`
 * may therefore run more than once and must only compute from what it is given. The one gap is a
 * guild's very first record: there is nothing to compare with and the backends have no
 * insert-if-absent, so two processes storing a guild's first settings at the same instant race,
 * and the last writer wins.
 */
import type { KeyBackend } from '../keys/backend.js';
import { openBackend } from '../keys/backends.js';
import { TtlCache } from '../keys/cache.js';
import { GuildWrites } from '../keys/guild-writes.js';
import { KeyStoreError, storageError } from '../keys/errors.js';
import { GuildIdSchema, describeIssues } from '../keys/schema.js';
import type { Logger } from '../logger.js';
import { SettingsRecordReader, type SettingsSnapshot } from './record.js';
import { GuildSettingsSchema, type GuildSettings } from './schema.js';

export const SETTINGS_NAMESPACE = 'feedbot-settings';

export interface GuildSettingsStoreOptions {
  databaseUrl: string;
  logger: Logger;
  namespace?: string;
  /** Max guilds whose settings are kept in memory. Default 1000; 0 disables the cache. */
  cacheSize?: number;
  /** How long cached settings are trusted (the bound on a missed change). Default 30 s. */
  cacheTtlMs?: number;
}

const DEFAULT_CACHE_SIZE = 1_000;
/** Short whatever the backend: a feed-manager role removed elsewhere stops counting within it. */
const DEFAULT_CACHE_TTL_MS = 30_000;
/** Compare-and-swap attempts before update() gives up on a record other processes keep changing. */
const MAX_SWAP_ATTEMPTS = 8;
/** The longest random pause before an attempt after a lost swap (two writers in step would keep colliding). */
const MAX_RETRY_PAUSE_MS = 200;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const copySettings = (settings: GuildSettings): GuildSettings => structuredClone(settings);
const sameSettings = (a: GuildSettings, b: GuildSettings) => JSON.stringify(a) === JSON.stringify(b);

export class GuildSettingsStore {
  /** Write order, the cache and its invalidation, announcements (shared with the key store). */
  private readonly writes: GuildWrites<GuildSettings>;
  private readonly records: SettingsRecordReader;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly db: KeyBackend,
    logger: Logger,
    cacheSize: number,
    cacheTtlMs: number,
  ) {
    this.writes = new GuildWrites(new TtlCache(cacheSize, cacheTtlMs, copySettings), db, (guildId, error) => {
      logger.warn({ guildId, storageError: storageError('announce', error).message }, 'settings change not announced to other processes');
    });
    this.records = new SettingsRecordReader(db, logger);
  }

  static async open(opts: GuildSettingsStoreOptions): Promise<GuildSettingsStore> {
    const cacheSize = opts.cacheSize ?? DEFAULT_CACHE_SIZE;
    const cacheTtlMs = opts.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
    if (!Number.isInteger(cacheSize) || cacheSize < 0) throw new TypeError('cacheSize must be a non-negative integer');
    if (!Number.isFinite(cacheTtlMs) || cacheTtlMs < 0) throw new TypeError('cacheTtlMs must be a non-negative number');
    const logger = opts.logger.child({ component: 'settings' });
    const db = await openBackend({ databaseUrl: opts.databaseUrl, namespace: opts.namespace ?? SETTINGS_NAMESPACE, logger });
    const store = new GuildSettingsStore(db, logger, cacheSize, cacheTtlMs);
    try {
      await db.watch?.({ changed: (guildId) => store.writes.forget(guildId), reset: () => store.writes.forget() });
    } catch (error) {
      await db.close().catch(() => undefined);
      throw storageError(`could not watch the settings for changes (${db.where})`, error);
    }
    return store;
  }

  /** The guild's settings, or the defaults when none are stored (or the stored record is unusable). */
  async get(guildId: string): Promise<GuildSettings> {
    const id = this.checkedId(guildId);
    const cached = this.writes.cached(id);
    if (cached) return copySettings(cached);
    return copySettings(await this.writes.load(id, async () => (await this.records.read(id)).settings));
  }

  /**
   * Applies `change` to the current settings and stores the result; returns what was stored.
   * `change` gets a copy it may modify, and may run again on a fresh copy if another process
   * wrote meanwhile; whatever it throws rejects the update, which then stores nothing.
   */
  async update(guildId: string, change: (current: GuildSettings) => GuildSettings): Promise<GuildSettings> {
    const id = this.checkedId(guildId);
    return this.writes.serialized(id, async () => {
      for (let attempt = 1; ; attempt += 1) {
        const current = await this.records.read(id);
        const next = this.validated(id, change(copySettings(current.settings)));
        if (sameSettings(current.settings, next) || (await this.swap(id, current, next))) {
          this.writes.put(id, next);
          return copySettings(next);
        }
        if (attempt === MAX_SWAP_ATTEMPTS) {
          throw new KeyStoreError('storage', `the settings of guild ${id} kept changing under ${attempt} attempts to update them`, { guildId: id });
        }
        await pause(Math.random() * Math.min(MAX_RETRY_PAUSE_MS, 5 * 2 ** attempt));
      }
    });
  }

  /** Deletes the guild's settings (forgetting a server, src/guild-data/forget.ts); true if a record was stored. */
  async delete(guildId: string): Promise<boolean> {
    const id = this.checkedId(guildId);
    return this.writes.serialized(id, async () => {
      let removed: boolean;
      try {
        removed = await this.db.keyv.delete(id);
      } catch (error) {
        throw storageError(`could not delete the settings of guild ${id}`, error, id);
      }
      this.writes.announce(id);
      return removed;
    });
  }

  /** Waits for pending writes and announcements, then closes the backend. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.writes.settle();
      await this.db.close();
    })();
    return this.closing;
  }

  /** Stores `next` if the record is still what `current` read; false when another process changed it. */
  private async swap(guildId: string, current: SettingsSnapshot, next: GuildSettings): Promise<boolean> {
    let stored: boolean;
    try {
      if (current.raw !== undefined) stored = await this.db.replaceIf(guildId, current.raw, next);
      // No record yet: nothing to compare with (the first-record race in the header).
      else if (await this.db.keyv.set(guildId, next)) stored = true;
      else throw new KeyStoreError('storage', `storing the settings of guild ${guildId} was not confirmed`, { guildId });
    } catch (error) {
      throw error instanceof KeyStoreError ? error : storageError(`could not store the settings of guild ${guildId}`, error, guildId);
    }
    if (stored) this.writes.announce(guildId);
    return stored;
  }

  private validated(guildId: string, settings: GuildSettings): GuildSettings {
    const parsed = GuildSettingsSchema.safeParse(settings);
    if (parsed.success) return parsed.data;
    throw new KeyStoreError('invalid_input', `invalid settings for guild ${guildId}: ${describeIssues(parsed.error)}`, { guildId });
  }

  private checkedId(guildId: string): string {
    if (this.closing) throw new KeyStoreError('closed', 'the settings store is closed');
    const parsed = GuildIdSchema.safeParse(guildId);
    if (!parsed.success) throw new KeyStoreError('invalid_input', 'guild id must be a Discord snowflake (digits only)');
    return parsed.data;
  }
}
