/**
 * The PostgreSQL side of the key store: Keyv on @keyv/postgres (table public.keyv, columns key and
 * value, keys `namespace:guildId` as on SQLite), plus raw queries for listing, compare-and-swap
 * and LISTEN/NOTIFY change announcements between bot processes.
 *
 * @keyv/postgres keeps one module-wide pg.Pool and ends it on any instance's disconnect(), so two
 * stores in one process (a bot and a migration's other side) would close each other's pool. The
 * subclass below gives each adapter a pool of its own instead.
 */
import pg from 'pg';
import { Keyv } from 'keyv';
import { KeyvPostgres } from '@keyv/postgres';
import type { Logger } from '../logger.js';
import { CHANGES_CHANNEL, changeMessage, decodeEnvelope, decodeRows, encodeEnvelope, keysetPages, parseChangeMessage } from './backend.js';
import type { ChangeListener, KeyBackend, KeyRow, RawEntry } from './backend.js';
import { describeStorageError } from './errors.js';
import { GuildIdSchema } from './schema.js';
import { redactPassword, type StoreLocation } from './store-url.js';

type Query = (sql: string, values?: unknown[]) => Promise<unknown[]>;
type PostgresLocation = Extract<StoreLocation, { kind: 'postgres' }>;

const CONNECT_TIMEOUT_MS = 5_000;
const RELISTEN_DELAY_MS = 1_000;

class OwnPoolPostgres extends KeyvPostgres {
  private ownPool: pg.Pool | undefined;

  constructor(private readonly poolConfig: pg.PoolConfig) {
    super({ uri: 'postgresql://' });
  }

  override async connect(): Promise<(sql: string, values?: unknown) => Promise<unknown[]>> {
    // The base constructor calls connect() before this class's fields exist: wait one tick.
    await Promise.resolve();
    this.ownPool ??= new pg.Pool(this.poolConfig);
    // An idle client's socket error would otherwise crash the process; queries report their own.
    this.ownPool.on('error', () => undefined);
    const pool = this.ownPool;
    return async (sql, values) => (await pool.query(sql, values as unknown[])).rows as unknown[];
  }

  override async disconnect(): Promise<void> {
    await this.ownPool?.end();
  }
}

export class PostgresKeyBackend implements KeyBackend {
  readonly kind = 'postgres';
  private listener: pg.Client | undefined;
  private closed = false;

  private constructor(
    readonly keyv: Keyv<unknown>,
    private readonly adapter: OwnPoolPostgres,
    readonly namespace: string,
    private readonly location: PostgresLocation,
    private readonly logger: Logger,
  ) {}

  static open(location: PostgresLocation, namespace: string, logger: Logger): PostgresKeyBackend {
    const adapter = new OwnPoolPostgres({ connectionString: location.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: 4 });
    const keyv = new Keyv<unknown>({ store: adapter, namespace, throwOnErrors: true });
    keyv.on('error', (error: unknown) => {
      logger.error({ storageError: describe(error, location), namespace }, 'key store: storage error');
    });
    return new PostgresKeyBackend(keyv, adapter, namespace, location, logger);
  }

  get where(): string {
    return this.location.where;
  }

  /** One round trip: the server answers and accepts our credentials (and the table exists). */
  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  private get prefix(): string {
    return `${this.namespace}:`;
  }

  private get query(): Query {
    return this.adapter.query as Query;
  }

  async listEntries(): Promise<RawEntry[]> {
    const rows = (await this.query('SELECT key, value FROM public.keyv WHERE substr(key, 1, $1) = $2 ORDER BY key', [
      this.prefix.length,
      this.prefix,
    ])) as KeyRow[];
    return decodeRows(this.keyv, this.prefix, rows);
  }

  /**
   * Pages in key order, each starting after the last key of the page before (no OFFSET, which
   * rescans). No range on the prefix: the column's collation need not compare byte-wise, but
   * `key >` and ORDER BY use the same one, so every key comes once; the primary key serves both.
   */
  entryPages(size: number): AsyncGenerator<RawEntry[]> {
    return keysetPages(
      size,
      async (after) =>
        (await (after === undefined
          ? this.query('SELECT key, value FROM public.keyv WHERE substr(key, 1, $1) = $2 ORDER BY key LIMIT $3', [this.prefix.length, this.prefix, size])
          : this.query('SELECT key, value FROM public.keyv WHERE key > $4 AND substr(key, 1, $1) = $2 ORDER BY key LIMIT $3', [
              this.prefix.length,
              this.prefix,
              size,
              after,
            ]))) as KeyRow[],
      (rows) => decodeRows(this.keyv, this.prefix, rows),
    );
  }

  async readEntry(guildId: string): Promise<RawEntry | undefined> {
    const rows = (await this.query('SELECT value FROM public.keyv WHERE key = $1', [this.prefix + guildId])) as Array<{ value: unknown }>;
    const value = rows[0]?.value;
    if (typeof value !== 'string') return undefined;
    return { guildId, raw: value, record: await decodeEnvelope(this.keyv, value) };
  }

  async writeRaw(guildId: string, raw: string): Promise<void> {
    GuildIdSchema.parse(guildId);
    await this.adapter.set(this.prefix + guildId, raw);
    await this.announce(guildId);
  }

  async replaceIf(guildId: string, expectedRaw: string, record: unknown): Promise<boolean> {
    GuildIdSchema.parse(guildId);
    const raw = await encodeEnvelope(this.keyv, record);
    const rows = await this.query('UPDATE public.keyv SET value = $1 WHERE key = $2 AND value = $3 RETURNING key', [
      raw,
      this.prefix + guildId,
      expectedRaw,
    ]);
    return rows.length === 1;
  }

  async announce(guildId: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, changeMessage(this.namespace, guildId)]);
  }

  /** LISTEN on a dedicated connection; after it drops, reconnects and reports a reset (notifications may be lost). */
  async watch(listener: ChangeListener): Promise<void> {
    const client = new pg.Client({ connectionString: this.location.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    this.listener = client;
    const relisten = () => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      listener.reset();
      setTimeout(() => {
        if (!this.closed) this.watch(listener).catch(() => setTimeout(relisten, RELISTEN_DELAY_MS).unref());
      }, RELISTEN_DELAY_MS).unref();
    };
    client.on('error', (error) => {
      this.logger.warn({ storageError: describe(error, this.location) }, 'key store: change listener lost its connection');
      relisten();
    });
    client.on('end', relisten);
    client.on('notification', (message) => {
      const guildId = message.channel === CHANGES_CHANNEL ? parseChangeMessage(this.namespace, message.payload ?? '') : undefined;
      if (guildId !== undefined) listener.changed(guildId);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANGES_CHANNEL}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    await Promise.allSettled([listener?.end(), this.keyv.disconnect()]);
  }
}

function describe(error: unknown, location: PostgresLocation): { code?: string; message: string } {
  const described = describeStorageError(error);
  return { ...described, message: redactPassword(described.message, location.password) };
}
