/**
 * Per-guild API keys, encrypted at rest (see crypto.ts) in a Keyv namespace on SQLite, PostgreSQL
 * or Redis (backends.ts).
 *
 * The bot reads the key on every command, so decrypted keys are kept in a small in-process LRU
 * cache. Writes for one guild are serialized and the cache is only filled by a read that no write
 * overlapped, so a get() never resurrects a value a concurrent set()/delete() replaced (the
 * bookkeeping is guild-writes.ts, shared with the settings store). The cache
 * is per process. On PostgreSQL and Redis every write is announced to the other processes, which
 * drop that guild's entry (and their whole cache when their listener reconnects); entries also
 * expire (cacheTtlMs), which bounds staleness when an announcement is lost or another process
 * edits a SQLite file (rotation does not change plaintext, so it never makes the cache wrong).
 */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { decryptKeyRecord, recordKid, sealKeyRecord, secretKid } from './crypto.js';
import type { KeyBackend } from './backend.js';
import { openBackend } from './backends.js';
import { KeyCache, copyKey as copy } from './cache.js';
import { GuildWrites } from './guild-writes.js';
import { KeyRecordError, KeyStoreError, storageError } from './errors.js';
import { StoredKeySchema, describeIssues, type StoredKey } from './schema.js';
import { assertSecret } from './secret.js';
import { observed, operationObservers, type KeyStoreOperationListener } from './operations.js';

export { maskKey } from './mask.js';
export { rotateKeys } from './rotate.js';
export { KeyStoreError } from './errors.js';
export type { StoredKey } from './schema.js';

export interface KeyStoreOptions {
  /** 'sqlite://./data/feedbot.sqlite' (or a plain path), 'postgres://…', 'redis://…' or 'rediss://…'. */
  databaseUrl: string;
  /** Current secret: every write uses it. */
  secret: Buffer;
  /** Older secrets still accepted for reads (rotation window). */
  previousSecrets?: Buffer[];
  namespace?: string;
  logger?: Logger;
  /** Max decrypted keys kept in memory. Default 500; 0 disables the cache. */
  cacheSize?: number;
  /** How long a cached key is trusted. Default 5 minutes on SQLite, 30 s on a shared server (the bound if a change announcement is lost). */
  cacheTtlMs?: number;
  /** How long SQLite waits for another connection's lock (see KeyDatabaseOptions). Default 5000. */
  busyTimeoutMs?: number;
  /** Records the audit (at open) reads at a time. Default 500. */
  auditPageSize?: number;
}

export interface KeyStoreAudit {
  total: number;
  /** Records under the current secret. */
  current: number;
  /** Records still under one of previousSecrets (run `npm run keys:rotate`). */
  previous: number;
  /** Guild ids whose record names a secret that is not configured. */
  unknownSecret: string[];
  /** Guild ids whose record is not a readable v1 record. */
  malformed: string[];
}

/** GuildIdSchema's pattern (schema.ts). */
const GUILD_ID = /^\d{1,32}$/;
const LOCAL_CACHE_TTL_MS = 5 * 60_000;
const SHARED_CACHE_TTL_MS = 30_000;
const AUDIT_PAGE_SIZE = 500;

export class KeyStore {
  /** Write order, the cache and its invalidation, announcements (guild-writes.ts). */
  private readonly writes: GuildWrites<StoredKey>;
  private readonly operations = operationObservers();
  /** The records' associated-data options, built once rather than per call. */
  private readonly recordOptions: { namespace: string };
  private closed = false;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly db: KeyBackend,
    private readonly secret: Buffer,
    private readonly readSecrets: Buffer[],
    private readonly logger: Logger,
    cacheSize: number,
    cacheTtlMs: number,
    private readonly auditPageSize: number,
  ) {
    this.recordOptions = { namespace: db.namespace };
    this.writes = new GuildWrites(new KeyCache(cacheSize, cacheTtlMs), db, (guildId, error) => {
      logger.warn({ guildId, storageError: storageError('announce', error).message }, 'key change not announced to other processes');
    });
  }

  static async open(opts: KeyStoreOptions): Promise<KeyStore> {
    assertSecret(opts.secret, 'secret');
    const previous = (opts.previousSecrets ?? []).filter((candidate, index) => {
      assertSecret(candidate, `previousSecrets[${index}]`);
      return !candidate.equals(opts.secret);
    });
    const cacheSize = opts.cacheSize ?? 500;
    if (!Number.isInteger(cacheSize) || cacheSize < 0) throw new TypeError('cacheSize must be a non-negative integer');
    if (opts.cacheTtlMs !== undefined && (!Number.isFinite(opts.cacheTtlMs) || opts.cacheTtlMs < 0)) {
      throw new TypeError('cacheTtlMs must be a non-negative number');
    }
    const auditPageSize = opts.auditPageSize ?? AUDIT_PAGE_SIZE;
    if (!Number.isInteger(auditPageSize) || auditPageSize < 1) throw new TypeError('auditPageSize must be a positive integer');

    const logger = (opts.logger ?? silentLogger()).child({ component: 'key-store' });
    const db = await openBackend({
      databaseUrl: opts.databaseUrl,
      ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
      ...(opts.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: opts.busyTimeoutMs }),
      logger,
    });
    const cacheTtlMs = opts.cacheTtlMs ?? (db.watch ? SHARED_CACHE_TTL_MS : LOCAL_CACHE_TTL_MS);
    const store = new KeyStore(db, opts.secret, [opts.secret, ...previous], logger, cacheSize, cacheTtlMs, auditPageSize);
    try {
      const audit = await store.audit();
      await db.watch?.({
        changed: (guildId) => store.writes.forget(guildId),
        reset: () => store.writes.forget(),
      });
      const summary = {
        backend: db.kind,
        where: db.where,
        namespace: db.namespace,
        kid: secretKid(opts.secret),
        records: audit.total,
        underPreviousSecret: audit.previous,
        unknownSecret: audit.unknownSecret.length,
        malformed: audit.malformed.length,
      };
      if (audit.unknownSecret.length > 0 || audit.malformed.length > 0) {
        logger.warn(
          { ...summary, unknownSecretGuilds: audit.unknownSecret.slice(0, 20), malformedGuilds: audit.malformed.slice(0, 20) },
          'key store opened, but some records cannot be read with the configured secrets',
        );
      } else {
        logger.info(summary, 'key store opened');
      }
    } catch (error) {
      await db.close().catch(() => undefined);
      throw error instanceof KeyStoreError ? error : storageError(`could not read the key database (${db.where})`, error);
    }
    return store;
  }

  /**
   * Counts records by which configured secret they need, without decrypting them. Reads them a
   * page at a time: all at once, the pass's native memory would stay resident in every process
   * that opened the store, about 1.8 KB per stored key (bench/lib/key-store-audit-memory.ts).
   * Guild ids are listed sorted, whatever order the backend pages in.
   */
  async audit(): Promise<KeyStoreAudit> {
    return observed(this.operations, 'audit', async () => {
      this.assertOpen();
      const currentKid = secretKid(this.secret);
      const previousKids = new Set(this.readSecrets.slice(1).map(secretKid));
      const audit: KeyStoreAudit = { total: 0, current: 0, previous: 0, unknownSecret: [], malformed: [] };
      const count = async () => {
        for await (const page of this.db.entryPages(this.auditPageSize)) {
          for (const entry of page) {
            audit.total += 1;
            const record = entry.record as { v?: unknown } | undefined;
            const kid = recordKid(record);
            if (record?.v !== 1 || kid === undefined) audit.malformed.push(entry.guildId);
            else if (kid === currentKid) audit.current += 1;
            else if (previousKids.has(kid)) audit.previous += 1;
            else audit.unknownSecret.push(entry.guildId);
          }
        }
      };
      await this.writes.track(count()).catch((error: unknown) => {
        throw storageError('could not list stored keys', error);
      });
      audit.malformed.sort();
      audit.unknownSecret.sort();
      return audit;
    });
  }

  /**
   * The guild's key, or undefined if none is stored. Throws KeyStoreError ('unreadable', with
   * `reason`) when a record exists but cannot be decrypted or validated, ('storage') when SQLite fails.
   */
  // Not `async` itself (nor set): returning observed()'s promise from an async function would
  // cost extra microtask turns per call.
  get(guildId: string): Promise<StoredKey | undefined> {
    return observed(this.operations, 'get', async (span) => {
      this.assertOpen();
      const id = this.guildId(guildId);
      const cached = this.writes.cached(id);
      span.set({ 'feedbot.key_store.cache': cached ? 'hit' : 'miss' });
      if (cached) return copy(cached);
      // Just decrypted, so the caller's own: the cache keeps a copy of its own (TtlCache.put).
      // Awaited rather than returned: an async function resolving to a promise takes two more turns.
      const key = await this.writes.load(id, () => this.read(id));
      return key;
    });
  }

  /** Reads and decrypts the guild's record, undefined when none (get() without the cache). */
  private async read(id: string): Promise<StoredKey | undefined> {
    let record: unknown;
    try {
      record = await this.db.keyv.get(id);
    } catch (error) {
      if (error instanceof SyntaxError) {
        // The Keyv envelope is not JSON. Its parse error quotes the stored text, so it is dropped.
        throw this.unreadable(id, new KeyRecordError('malformed', 'stored value is not JSON'));
      }
      throw storageError(`could not read the key of guild ${id}`, error, id);
    }
    if (record === undefined || record === null) return undefined;
    try {
      return decryptKeyRecord(record, id, this.readSecrets, this.recordOptions);
    } catch (error) {
      if (error instanceof KeyRecordError) throw this.unreadable(id, error);
      // Whatever else a hostile or corrupt record makes the parser do, the caller gets our error.
      throw this.unreadable(id, new KeyRecordError('malformed', 'the stored record could not be checked'));
    }
  }

  /** Encrypts and stores the guild's key; resolves only once SQLite committed the write. */
  set(guildId: string, key: StoredKey): Promise<void> {
    return observed(this.operations, 'set', async () => {
      this.assertOpen();
      const id = this.guildId(guildId);
      const parsed = StoredKeySchema.safeParse(key);
      if (!parsed.success) {
        throw new KeyStoreError('invalid_input', `invalid key for guild ${id}: ${describeIssues(parsed.error)}`, { guildId: id });
      }
      const value = parsed.data;
      // Validated just above: sealed without a second parse.
      const record = sealKeyRecord(value, id, this.secret, this.recordOptions);
      await this.writes.serialized(id, async () => {
        let ok: boolean;
        try {
          ok = await this.db.keyv.set(id, record);
        } catch (error) {
          throw storageError(`could not store the key of guild ${id}`, error, id);
        }
        if (ok !== true) throw new KeyStoreError('storage', `storing the key of guild ${id} was not confirmed`, { guildId: id });
        this.writes.put(id, value);
        // Not awaited (guild-writes.ts): a write and its announcement in one statement make the
        // caller wait for the NOTIFY's commit: 0.52× the raw adapter's median set on PostgreSQL
        // against 0.68× with the announcement sent after.
        this.writes.announce(id);
        this.logger.info({ guildId: id, kid: record.kid }, 'api key stored');
      });
    });
  }

  /** Removes the guild's key; true if one was stored. */
  async delete(guildId: string): Promise<boolean> {
    return observed(this.operations, 'delete', async () => {
      this.assertOpen();
      const id = this.guildId(guildId);
      return this.writes.serialized(id, async () => {
        let removed: boolean;
        try {
          removed = await this.db.keyv.delete(id);
        } catch (error) {
          throw storageError(`could not delete the key of guild ${id}`, error, id);
        }
        this.writes.announce(id);
        if (removed) this.logger.info({ guildId: id }, 'api key deleted');
        return removed;
      });
    });
  }

  /** Whether a record exists (it may still be unreadable: get() tells). */
  async has(guildId: string): Promise<boolean> {
    this.assertOpen();
    const id = this.guildId(guildId);
    if (this.writes.cached(id)) return true;
    try {
      return await this.writes.track(this.db.keyv.has(id));
    } catch (error) {
      throw storageError(`could not read the key of guild ${id}`, error, id);
    }
  }

  /** A cheap real query, for readiness: rejects ('storage') when the backend does not answer. */
  async ping(): Promise<void> {
    return observed(this.operations, 'ping', async () => {
      this.assertOpen();
      await this.writes.track(this.db.readEntry('0')).catch((error: unknown) => Promise.reject(storageError('the key database does not answer', error)));
    });
  }

  /** Calls `listener` after every get/set/delete/audit/ping with its outcome; returns the unsubscribe. */
  onOperation(listener: KeyStoreOperationListener): () => void {
    return this.operations.add(listener);
  }

  /** Waits for pending writes, then closes the database. Idempotent. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = (async () => {
        await this.writes.settle();
        await this.db.close();
        this.logger.debug('key store closed');
      })();
    }
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closed) throw new KeyStoreError('closed', 'the key store is closed');
  }

  // GuildIdSchema's own pattern, tested directly: the same check without a zod parse per call.
  private guildId(guildId: string): string {
    if (typeof guildId !== 'string' || !GUILD_ID.test(guildId)) {
      throw new KeyStoreError('invalid_input', 'guild id must be a Discord snowflake (digits only)');
    }
    return guildId;
  }

  private unreadable(guildId: string, error: KeyRecordError): KeyStoreError {
    this.logger.warn({ guildId, reason: error.reason, kid: error.kid }, 'stored api key cannot be read');
    return new KeyStoreError('unreadable', `the stored API key of guild ${guildId} cannot be used: ${error.message}`, {
      guildId,
      reason: error.reason,
      cause: error,
    });
  }
}
