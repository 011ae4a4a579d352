/**
 * The sandbox's SQLite data: servers (guild id + plan), one hashed key per server, feeds and the
 * posts they forwarded. Every query that touches feeds or posts is filtered by guild id, so one
 * server's key can never reach another server's rows.
 *
 * Key lookups and feed lists are answered from memory (read-cache.ts): every write below drops
 * the guild it touched, and `fresh()` first makes sure no other connection (the admin CLI) has
 * committed since the cache was filled (commit-watch.ts).
 */
import type { ContentKind, FeedState, Scope } from '@feedbot/feed-api-contract';
import { CommitWatch } from './commit-watch.js';
import { Db, type SqlParam } from './db.js';
import { ReadCache } from './read-cache.js';
import type {
  CreateFeedResult,
  FeedRecord,
  FreshReads,
  KeyIdentity,
  KeyRecord,
  NewFeed,
  Plan,
  PostRecord,
  ServerRecord,
  StatsRecord,
} from './records.js';
import { FEED_COLUMNS, KEY_COLUMNS, POST_COLUMNS, SCHEMA, SERVER_COLUMNS, toFeed, toKey, type FeedRow, type KeyRow } from './schema.js';

export interface StoreOptions {
  /** Default true; false: notice other processes' commits with data_version round trips only (tests). */
  walIndexShortcut?: boolean;
}

/** Databases no other connection can reach: nothing to watch. */
function isPrivateDatabase(file: string): boolean {
  return file === '' || file === ':memory:';
}

export class SandboxStore {
  private readonly cache = new ReadCache();
  private watch: CommitWatch | undefined;
  private readonly reads: FreshReads = {
    keyByHash: (keyHash) => this.cachedKey(keyHash),
    feeds: (guildId) => this.cachedFeeds(guildId),
  };

  private constructor(private readonly db: Db) {}

  static async open(file: string, options: StoreOptions = {}): Promise<SandboxStore> {
    const db = await Db.open(file);
    const store = new SandboxStore(db);
    try {
      await db.exec(SCHEMA);
      if (!isPrivateDatabase(file)) {
        store.watch = await CommitWatch.open(file, { onChange: () => store.cache.clear(), walIndexShortcut: options.walIndexShortcut });
      }
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  async close(): Promise<void> {
    try {
      await this.watch?.close();
    } finally {
      await this.db.close();
    }
  }

  /** Whether commits by other processes are noticed through the WAL index header shortcut (see commit-watch.ts). */
  get watchesWalIndex(): boolean {
    return this.watch?.usesWalIndex ?? false;
  }

  /** The cached reads, after checking that no other connection has committed since they were filled. */
  async fresh(): Promise<FreshReads> {
    await this.watch?.sync();
    return this.reads;
  }

  /** A write; the guild's cached rows go once it has run (failed or not: it may have half-happened in SQLite's eyes). */
  private async write(guildId: string, sql: string, params: SqlParam[]): Promise<{ lastID: number; changes: number }> {
    try {
      return await this.db.run(sql, params);
    } finally {
      this.cache.dropGuild(guildId);
    }
  }

  /** A write that touches at most one row: whether it did. */
  private async writeOne(guildId: string, sql: string, params: SqlParam[]): Promise<boolean> {
    return (await this.write(guildId, sql, params)).changes === 1;
  }

  private async cachedKey(keyHash: string): Promise<KeyIdentity | undefined> {
    const hit = this.cache.key(keyHash);
    if (hit) return hit;
    const generation = this.cache.generation;
    const row = await this.db.get<KeyRow & { keyHash: string; plan: Plan }>(
      `SELECT ${KEY_COLUMNS}, k.key_hash AS keyHash, s.plan FROM api_keys k JOIN servers s ON s.guild_id = k.guild_id WHERE k.key_hash = ?`,
      [keyHash],
    );
    // Unknown keys are not remembered: random guesses must not fill memory.
    return row && this.cache.putKey(generation, toKey(row));
  }

  private async cachedFeeds(guildId: string): Promise<readonly FeedRecord[]> {
    const hit = this.cache.feeds(guildId);
    if (hit) return hit;
    const generation = this.cache.generation;
    const rows = await this.db.all<FeedRow>(`SELECT ${FEED_COLUMNS} FROM feeds f WHERE f.guild_id = ? ORDER BY f.id`, [guildId]);
    return this.cache.putFeeds(generation, guildId, rows.map(toFeed));
  }

  // ─── Servers ────────────────────────────────────────────────────────────────────────────────

  /** Inserts the server; false when it already exists (its plan is left alone). */
  createServer(guildId: string, plan: Plan, createdAt: string): Promise<boolean> {
    return this.writeOne(
      guildId,
      'INSERT INTO servers (guild_id, plan, created_at) VALUES (?, ?, ?) ON CONFLICT(guild_id) DO NOTHING',
      [guildId, plan, createdAt],
    );
  }

  setPlan(guildId: string, plan: Plan): Promise<boolean> {
    return this.writeOne(guildId, 'UPDATE servers SET plan = ? WHERE guild_id = ?', [plan, guildId]);
  }

  getServer(guildId: string): Promise<ServerRecord | undefined> {
    return this.db.get<ServerRecord>(`SELECT ${SERVER_COLUMNS} FROM servers WHERE guild_id = ?`, [guildId]);
  }

  listServers(): Promise<ServerRecord[]> {
    return this.db.all<ServerRecord>(`SELECT ${SERVER_COLUMNS} FROM servers ORDER BY guild_id`);
  }

  // ─── Keys ───────────────────────────────────────────────────────────────────────────────────

  /** One key per server: saving replaces the previous one in the same statement. */
  async saveKey(guildId: string, keyHash: string, last4: string, scopes: Scope[], rateLimit: number | null, createdAt: string): Promise<void> {
    await this.write(
      guildId,
      `INSERT INTO api_keys (guild_id, key_hash, last4, scopes, rate_limit, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(guild_id) DO UPDATE SET key_hash = excluded.key_hash, last4 = excluded.last4,
         scopes = excluded.scopes, rate_limit = excluded.rate_limit, created_at = excluded.created_at`,
      [guildId, keyHash, last4, scopes.join(' '), rateLimit, createdAt],
    );
  }

  deleteKey(guildId: string): Promise<boolean> {
    return this.writeOne(guildId, 'DELETE FROM api_keys WHERE guild_id = ?', [guildId]);
  }

  async getKey(guildId: string): Promise<KeyRecord | undefined> {
    const row = await this.db.get<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.guild_id = ?`, [guildId]);
    return row && toKey(row);
  }

  /** Cached; the identity is frozen. */
  async findKeyByHash(keyHash: string): Promise<KeyIdentity | undefined> {
    return (await this.fresh()).keyByHash(keyHash);
  }

  // ─── Feeds ──────────────────────────────────────────────────────────────────────────────────

  /** Cached: a new array of frozen records. */
  async listFeeds(guildId: string): Promise<FeedRecord[]> {
    return [...(await (await this.fresh()).feeds(guildId))];
  }

  async getFeed(guildId: string, id: number): Promise<FeedRecord | undefined> {
    const row = await this.db.get<FeedRow>(`SELECT ${FEED_COLUMNS} FROM feeds f WHERE f.guild_id = ? AND f.id = ?`, [guildId, id]);
    return row && toFeed(row);
  }

  /** Active feeds of every server, for the simulator. */
  async listActiveFeeds(): Promise<FeedRecord[]> {
    const rows = await this.db.all<FeedRow>(`SELECT ${FEED_COLUMNS} FROM feeds f WHERE f.estado = 'activo' ORDER BY f.id`);
    return rows.map(toFeed);
  }

  /**
   * The limit and duplicate checks live in the INSERT itself, so two concurrent creations cannot
   * both slip under the limit.
   */
  async createFeed(guildId: string, feed: NewFeed, maxFeeds: number): Promise<CreateFeedResult> {
    const result = await this.write(
      guildId,
      `INSERT INTO feeds (guild_id, cuenta, canal_id, estado, tipos, filtros, creado)
       SELECT ?, ?, ?, ?, ?, ?, ?
       WHERE EXISTS (SELECT 1 FROM servers WHERE guild_id = ?)
         AND (SELECT COUNT(*) FROM feeds WHERE guild_id = ?) < ?
         AND NOT EXISTS (SELECT 1 FROM feeds WHERE guild_id = ? AND canal_id = ? AND lower(cuenta) = lower(?))`,
      [
        guildId, feed.cuenta, feed.canalId, feed.estado ?? 'activo', JSON.stringify(feed.tipos), JSON.stringify(feed.filtros), feed.creado,
        guildId,
        guildId, maxFeeds,
        guildId, feed.canalId, feed.cuenta,
      ],
    );
    if (result.changes === 1) {
      const created = await this.getFeed(guildId, result.lastID);
      if (created) return { kind: 'created', feed: created };
    }
    if (!(await this.getServer(guildId))) return { kind: 'no_server' };
    const duplicate = await this.db.get(
      'SELECT 1 FROM feeds WHERE guild_id = ? AND canal_id = ? AND lower(cuenta) = lower(?)',
      [guildId, feed.canalId, feed.cuenta],
    );
    return duplicate ? { kind: 'duplicate' } : { kind: 'limit' };
  }

  deleteFeed(guildId: string, id: number): Promise<boolean> {
    return this.writeOne(guildId, 'DELETE FROM feeds WHERE guild_id = ? AND id = ?', [guildId, id]);
  }

  setFeedState(guildId: string, id: number, estado: FeedState): Promise<boolean> {
    return this.writeOne(guildId, 'UPDATE feeds SET estado = ? WHERE guild_id = ? AND id = ?', [estado, guildId, id]);
  }

  /**
   * Moves every post of the feed back in time, together, so its newest was forwarded at `latest`
   * (its `ultimoPost`): a feed gone quiet, for the health stories. Returns how many posts moved.
   */
  async shiftPosts(guildId: string, feedId: number, latest: string): Promise<number> {
    const shift = `(julianday((SELECT MAX(publicado_discord) FROM posts WHERE guild_id = ?1 AND feed_id = ?2)) - julianday(?3))`;
    const result = await this.write(
      guildId,
      `UPDATE posts SET publicado_discord = strftime('%Y-%m-%dT%H:%M:%fZ', julianday(publicado_discord) - ${shift}),
                        publicado_en = strftime('%Y-%m-%dT%H:%M:%fZ', julianday(publicado_en) - ${shift})
       WHERE guild_id = ?1 AND feed_id = ?2`,
      [guildId, feedId, latest],
    );
    return result.changes;
  }

  // ─── Posts ──────────────────────────────────────────────────────────────────────────────────

  /** `post.guildId` must be the feed's guild: that guild's feed list (its `ultimoPost`) is dropped. */
  async insertPost(post: PostRecord): Promise<void> {
    await this.write(
      post.guildId,
      `INSERT INTO posts (code, feed_id, guild_id, cuenta, tipo, caption, publicado_en, publicado_discord)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [post.code, post.feedId, post.guildId, post.cuenta, post.tipo, post.caption, post.publicadoEn, post.publicadoDiscord],
    );
  }

  /** Newest first by forwarding time; insertion order breaks ties. */
  listPosts(guildId: string, feedId: number, limit: number, tipo?: ContentKind): Promise<PostRecord[]> {
    const params: SqlParam[] = [guildId, feedId];
    let filter = '';
    if (tipo) {
      filter = ' AND tipo = ?';
      params.push(tipo);
    }
    params.push(limit);
    return this.db.all<PostRecord>(
      `SELECT ${POST_COLUMNS} FROM posts WHERE guild_id = ? AND feed_id = ?${filter} ORDER BY publicado_discord DESC, seq DESC LIMIT ?`,
      params,
    );
  }

  getPostByCode(code: string): Promise<PostRecord | undefined> {
    return this.db.get<PostRecord>(`SELECT ${POST_COLUMNS} FROM posts WHERE code = ?`, [code]);
  }

  /**
   * `dayStart`/`weekStart` are ISO timestamps (UTC midnight of today / of this ISO week's Monday).
   * The most active account is the one with most posts this week; ties go to the one that posted
   * last, then alphabetical.
   */
  async stats(guildId: string, dayStart: string, weekStart: string): Promise<StatsRecord> {
    const counts = await this.db.get<{ activos: number; pausados: number; hoy: number; semana: number; ultima: string | null }>(
      `SELECT
         (SELECT COUNT(*) FROM feeds WHERE guild_id = ?1 AND estado = 'activo') AS activos,
         (SELECT COUNT(*) FROM feeds WHERE guild_id = ?1 AND estado = 'pausado') AS pausados,
         (SELECT COUNT(*) FROM posts WHERE guild_id = ?1 AND publicado_discord >= ?2) AS hoy,
         (SELECT COUNT(*) FROM posts WHERE guild_id = ?1 AND publicado_discord >= ?3) AS semana,
         (SELECT MAX(publicado_discord) FROM posts WHERE guild_id = ?1) AS ultima`,
      [guildId, dayStart, weekStart],
    );
    const top = await this.db.get<{ cuenta: string }>(
      `SELECT MIN(cuenta) AS cuenta, COUNT(*) AS n, MAX(publicado_discord) AS last
       FROM posts WHERE guild_id = ? AND publicado_discord >= ?
       GROUP BY lower(cuenta) ORDER BY n DESC, last DESC, lower(cuenta) ASC LIMIT 1`,
      [guildId, weekStart],
    );
    return {
      feedsActivos: counts?.activos ?? 0,
      feedsPausados: counts?.pausados ?? 0,
      postsHoy: counts?.hoy ?? 0,
      postsEstaSemana: counts?.semana ?? 0,
      cuentaMasActiva: top?.cuenta ?? null,
      ultimaActividad: counts?.ultima ?? null,
    };
  }
}
