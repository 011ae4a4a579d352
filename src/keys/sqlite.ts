/**
 * The SQLite side of the key store: one Keyv namespace on @keyv/sqlite, plus the two raw queries
 * Keyv has no API for (list a namespace with exact prefix matching; compare-and-swap for rotation).
 *
 * Durability: @keyv/sqlite runs each set/delete as one autocommit statement and its promise settles
 * in the statement's callback, i.e. after SQLite committed. The connection is pinned to
 * `synchronous = FULL` (the default in rollback-journal mode, made explicit here), so a committed
 * write has been fsynced and survives SIGKILL and power loss. The journal mode is left as found:
 * it is a property of the file, which other parts of the bot may share.
 */
import { access } from 'node:fs/promises';
import { Keyv } from 'keyv';
import { KeyvSqlite } from '@keyv/sqlite';
import type { Logger } from '../logger.js';
import { checkNamespace, decodeEnvelope, decodeRows, encodeEnvelope, keysetPages, type KeyBackend, type KeyRow, type RawEntry } from './backend.js';
import { DEFAULT_NAMESPACE } from './crypto.js';
import { MissingFolderError, ensureDatabaseFile, parseDatabaseUrl, type SqliteLocation } from './database-url.js';
import { KeyStoreError, describeStorageError } from './errors.js';
import { GuildIdSchema } from './schema.js';


const BUSY_TIMEOUT_MS = 5_000;

interface KeyDatabaseOptions {
  /** A sqlite:// URL or a plain path (openBackend in backends.ts dispatches the other schemes). */
  databaseUrl: string;
  namespace?: string;
  logger: Logger;
  /** Refuse to create a new database file (tools that must act on an existing one). */
  mustExist?: boolean;
  /** How long a statement waits for another connection's lock before SQLITE_BUSY. Default 5000. */
  busyTimeoutMs?: number;
}

export class KeyDatabase implements KeyBackend {
  readonly kind = 'sqlite';

  private constructor(
    readonly keyv: Keyv<unknown>,
    private readonly adapter: KeyvSqlite,
    readonly namespace: string,
    readonly location: SqliteLocation,
  ) {}

  static async open(opts: KeyDatabaseOptions): Promise<KeyDatabase> {
    const namespace = checkNamespace(opts.namespace ?? DEFAULT_NAMESPACE);
    const location = parseDatabaseUrl(opts.databaseUrl);
    if (opts.mustExist && location.file !== ':memory:') {
      try {
        await access(location.file);
      } catch {
        throw new KeyStoreError('storage', `key database ${location.file} does not exist`);
      }
    }
    try {
      await ensureDatabaseFile(location);
    } catch (error) {
      if (error instanceof MissingFolderError) throw new KeyStoreError('invalid_input', error.message);
      throw new KeyStoreError('storage', `could not create key database ${location.file}: ${describeStorageError(error).message}`, { cause: error });
    }

    const adapter = new KeyvSqlite({ uri: location.uri, busyTimeout: opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS });
    // throwOnErrors: by default Keyv turns a failed write into `false` and a failed read into
    // `undefined` ("no key"), which would hide storage failures from callers.
    const keyv = new Keyv<unknown>({ store: adapter, namespace, throwOnErrors: true });
    const logger = opts.logger;
    keyv.on('error', (error: unknown) => {
      logger.error({ storageError: describeStorageError(error), namespace }, 'key store: storage error');
    });
    const db = new KeyDatabase(keyv, adapter, namespace, location);
    try {
      await adapter.query('PRAGMA synchronous = FULL');
      // Deleted or overwritten records are zeroed in the file instead of lingering in free pages.
      await adapter.query('PRAGMA secure_delete = ON');
    } catch (error) {
      await adapter.disconnect().catch(() => undefined);
      const described = describeStorageError(error);
      throw new KeyStoreError('storage', `could not open key database ${location.file}: ${described.message}`, {
        cause: error,
      });
    }
    return db;
  }

  get where(): string {
    return this.location.file;
  }

  private get table(): string {
    return this.adapter.opts.table ?? 'keyv';
  }

  private get prefix(): string {
    return `${this.namespace}:`;
  }

  /** Every entry of this namespace. Prefix matched with substr, not LIKE (LIKE is case-insensitive and treats _ as a wildcard). */
  async listEntries(): Promise<RawEntry[]> {
    const rows = (await this.adapter.query(
      `SELECT key, value FROM ${this.table} WHERE substr(key, 1, ?) = ? ORDER BY key`,
      this.prefix.length,
      this.prefix,
    )) as KeyRow[];
    return decodeRows(this.keyv, this.prefix, rows);
  }

  /**
   * Pages in key order, each starting after the last key of the page before (no OFFSET, which
   * rescans). The range [`ns:`, `ns;`) is the prefix under SQLite's byte-wise comparison and lets
   * the primary key's index find a page; the substr test stays as listEntries has it.
   */
  entryPages(size: number): AsyncGenerator<RawEntry[]> {
    const end = `${this.namespace};`;
    return keysetPages(
      size,
      async (after) =>
        (await this.adapter.query(
          `SELECT key, value FROM ${this.table} WHERE key ${after === undefined ? '>=' : '>'} ? AND key < ? AND substr(key, 1, ?) = ? ORDER BY key LIMIT ?`,
          after ?? this.prefix,
          end,
          this.prefix.length,
          this.prefix,
          size,
        )) as KeyRow[],
      (rows) => decodeRows(this.keyv, this.prefix, rows),
    );
  }

  async readEntry(guildId: string): Promise<RawEntry | undefined> {
    const rows = (await this.adapter.query(
      `SELECT value FROM ${this.table} WHERE key = ?`,
      this.prefix + guildId,
    )) as Array<{ value: unknown }>;
    const value = rows[0]?.value;
    if (typeof value !== 'string') return undefined;
    return { guildId, raw: value, record: await decodeEnvelope(this.keyv, value) };
  }

  /** Replaces the record only if the stored envelope is still `expectedRaw`; false if it changed meanwhile. */
  async replaceIf(guildId: string, expectedRaw: string, record: unknown): Promise<boolean> {
    GuildIdSchema.parse(guildId);
    const raw = await encodeEnvelope(this.keyv, record);
    const rows = (await this.adapter.query(
      `UPDATE ${this.table} SET value = ? WHERE key = ? AND value = ? RETURNING key`,
      raw,
      this.prefix + guildId,
      expectedRaw,
    )) as unknown[];
    return rows.length === 1;
  }

  async writeRaw(guildId: string, raw: string): Promise<void> {
    GuildIdSchema.parse(guildId);
    await this.adapter.set(this.prefix + guildId, raw);
  }

  /** A file is not shared live between processes: the bounded cache TTL covers other writers. */
  async announce(): Promise<void> {}

  async close(): Promise<void> {
    await this.keyv.disconnect();
  }
}
