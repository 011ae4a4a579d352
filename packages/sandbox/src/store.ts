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
import { SCOPES } from '@feedbot/feed-api-contract';
import { CommitWatch } from './commit-watch.js';
import { Db, type SqlParam } from './db.js';
import { ReadCache } from './read-cache.js';

export const PLANS = ['free', 'pro', 'server'] as const;
export type Plan = (typeof PLANS)[number];

export interface ServerRecord {
  guildId: string;
  plan: Plan;
  createdAt: string;
}

export interface KeyRecord {
  guildId: string;
  last4: string;
  scopes: Scope[];
  /** Requests per window for this key; null means the sandbox's configured limit. */
  rateLimit: number | null;
  createdAt: string;
}

/** What a valid key resolves to. */
export interface KeyIdentity extends KeyRecord {
  keyHash: string;
  plan: Plan;
}

export interface FeedRecord {
  id: number;
  guildId: string;
  cuenta: string;
  canalId: string;
  estado: FeedState;
  tipos: ContentKind[];
  filtros: unknown[];
  creado: string;
  ultimoPost: string | null;
}

export interface PostRecord {
  code: string;
  feedId: number;
  guildId: string;
  cuenta: string;
  tipo: ContentKind;
  caption: string;
  publicadoEn: string;
  publicadoDiscord: string;
}

export interface StatsRecord {
  feedsActivos: number;
  feedsPausados: number;
  postsHoy: number;
  postsEstaSemana: number;
  cuentaMasActiva: string | null;
  ultimaActividad: string | null;
}

/**
 * The cached reads, valid for one request: get them from `store.fresh()` when the request starts,
 * so that everything committed before it (by this process or another) is seen. Values are frozen.
 */
export interface FreshReads {
  keyByHash(keyHash: string): Promise<KeyIdentity | undefined>;
  feeds(guildId: string): Promise<readonly FeedRecord[]>;
}

export type CreateFeedResult =
  | { kind: 'created'; feed: FeedRecord }
  | { kind: 'limit' }
  | { kind: 'duplicate' }
  | { kind: 'no_server' };

export interface NewFeed {
  cuenta: string;
  canalId: string;
  tipos: ContentKind[];
  filtros: unknown[];
  creado: string;
  estado?: FeedState;
}

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS servers (
  guild_id   TEXT PRIMARY KEY,
  plan       TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  guild_id   TEXT PRIMARY KEY REFERENCES servers(guild_id) ON DELETE CASCADE,
  key_hash   TEXT NOT NULL UNIQUE,
  last4      TEXT NOT NULL,
  scopes     TEXT NOT NULL,
  rate_limit INTEGER,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS feeds (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  guild_id  TEXT NOT NULL REFERENCES servers(guild_id) ON DELETE CASCADE,
  cuenta    TEXT NOT NULL,
  canal_id  TEXT NOT NULL,
  estado    TEXT NOT NULL CHECK (estado IN ('activo', 'pausado')),
  tipos     TEXT NOT NULL,
  filtros   TEXT NOT NULL,
  creado    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feeds_guild ON feeds(guild_id, id);
CREATE TABLE IF NOT EXISTS posts (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,
  code              TEXT NOT NULL UNIQUE,
  feed_id           INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  guild_id          TEXT NOT NULL,
  cuenta            TEXT NOT NULL,
  tipo              TEXT NOT NULL,
  caption           TEXT NOT NULL,
  publicado_en      TEXT NOT NULL,
  publicado_discord TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS posts_feed ON posts(feed_id, publicado_discord DESC, seq DESC);
CREATE INDEX IF NOT EXISTS posts_guild ON posts(guild_id, publicado_discord);
PRAGMA user_version = ${SCHEMA_VERSION};
`;

interface FeedRow {
  id: number;
  guild_id: string;
  cuenta: string;
  canal_id: string;
  estado: FeedState;
  tipos: string;
  filtros: string;
  creado: string;
  ultimo_post: string | null;
}

interface PostRow {
  code: string;
  feed_id: number;
  guild_id: string;
  cuenta: string;
  tipo: ContentKind;
  caption: string;
  publicado_en: string;
  publicado_discord: string;
}

interface KeyRow {
  guild_id: string;
  key_hash: string;
  last4: string;
  scopes: string;
  rate_limit: number | null;
  created_at: string;
  plan?: Plan;
}

const FEED_COLUMNS = `f.id, f.guild_id, f.cuenta, f.canal_id, f.estado, f.tipos, f.filtros, f.creado,
  (SELECT MAX(p.publicado_discord) FROM posts p WHERE p.feed_id = f.id) AS ultimo_post`;

function toFeed(row: FeedRow): FeedRecord {
  return {
    id: row.id,
    guildId: row.guild_id,
    cuenta: row.cuenta,
    canalId: row.canal_id,
    estado: row.estado,
    tipos: JSON.parse(row.tipos) as ContentKind[],
    filtros: JSON.parse(row.filtros) as unknown[],
    creado: row.creado,
    ultimoPost: row.ultimo_post,
  };
}

function toPost(row: PostRow): PostRecord {
  return {
    code: row.code,
    feedId: row.feed_id,
    guildId: row.guild_id,
    cuenta: row.cuenta,
    tipo: row.tipo,
    caption: row.caption,
    publicadoEn: row.publicado_en,
    publicadoDiscord: row.publicado_discord,
  };
}

function parseScopes(text: string): Scope[] {
  return text
    .split(' ')
    .filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
}

function toKey(row: KeyRow): KeyRecord {
  return {
    guildId: row.guild_id,
    last4: row.last4,
    scopes: parseScopes(row.scopes),
    rateLimit: row.rate_limit,
    createdAt: row.created_at,
  };
}

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

  private async cachedKey(keyHash: string): Promise<KeyIdentity | undefined> {
    const hit = this.cache.key(keyHash);
    if (hit) return hit;
    const generation = this.cache.generation;
    const row = await this.db.get<KeyRow & { plan: Plan }>(
      `SELECT k.*, s.plan FROM api_keys k JOIN servers s ON s.guild_id = k.guild_id WHERE k.key_hash = ?`,
      [keyHash],
    );
    // Unknown keys are not remembered: random guesses must not fill memory.
    return row && this.cache.putKey(generation, { ...toKey(row), keyHash: row.key_hash, plan: row.plan });
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
  async createServer(guildId: string, plan: Plan, createdAt: string): Promise<boolean> {
    const result = await this.write(
      guildId,
      'INSERT INTO servers (guild_id, plan, created_at) VALUES (?, ?, ?) ON CONFLICT(guild_id) DO NOTHING',
      [guildId, plan, createdAt],
    );
    return result.changes === 1;
  }

  async setPlan(guildId: string, plan: Plan): Promise<boolean> {
    const result = await this.write(guildId, 'UPDATE servers SET plan = ? WHERE guild_id = ?', [plan, guildId]);
    return result.changes === 1;
  }

  async getServer(guildId: string): Promise<ServerRecord | undefined> {
    const row = await this.db.get<{ guild_id: string; plan: Plan; created_at: string }>(
      'SELECT guild_id, plan, created_at FROM servers WHERE guild_id = ?',
      [guildId],
    );
    return row && { guildId: row.guild_id, plan: row.plan, createdAt: row.created_at };
  }

  async listServers(): Promise<ServerRecord[]> {
    const rows = await this.db.all<{ guild_id: string; plan: Plan; created_at: string }>(
      'SELECT guild_id, plan, created_at FROM servers ORDER BY guild_id',
    );
    return rows.map((row) => ({ guildId: row.guild_id, plan: row.plan, createdAt: row.created_at }));
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

  async deleteKey(guildId: string): Promise<boolean> {
    const result = await this.write(guildId, 'DELETE FROM api_keys WHERE guild_id = ?', [guildId]);
    return result.changes === 1;
  }

  async getKey(guildId: string): Promise<KeyRecord | undefined> {
    const row = await this.db.get<KeyRow>('SELECT * FROM api_keys WHERE guild_id = ?', [guildId]);
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

  async deleteFeed(guildId: string, id: number): Promise<boolean> {
    const result = await this.write(guildId, 'DELETE FROM feeds WHERE guild_id = ? AND id = ?', [guildId, id]);
    return result.changes === 1;
  }

  async setFeedState(guildId: string, id: number, estado: FeedState): Promise<boolean> {
    const result = await this.write(guildId, 'UPDATE feeds SET estado = ? WHERE guild_id = ? AND id = ?', [estado, guildId, id]);
    return result.changes === 1;
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
  async listPosts(guildId: string, feedId: number, limit: number, tipo?: ContentKind): Promise<PostRecord[]> {
    const params: (string | number)[] = [guildId, feedId];
    let filter = '';
    if (tipo) {
      filter = ' AND tipo = ?';
      params.push(tipo);
    }
    params.push(limit);
    const rows = await this.db.all<PostRow>(
      `SELECT * FROM posts WHERE guild_id = ? AND feed_id = ?${filter} ORDER BY publicado_discord DESC, seq DESC LIMIT ?`,
      params,
    );
    return rows.map(toPost);
  }

  async getPostByCode(code: string): Promise<PostRecord | undefined> {
    const row = await this.db.get<PostRow>('SELECT * FROM posts WHERE code = ?', [code]);
    return row && toPost(row);
  }

  /**
   * `dayStart`/`weekStart` are ISO timestamps (UTC midnight of today / of this ISO week's Monday).
   * The most active account is the one with most posts this week; ties go to the one that posted
   * last, then alphabetical.
   */
  async stats(guildId: string, dayStart: string, weekStart: string): Promise<StatsRecord> {
    const counts = await this.db.get<{
      activos: number;
      pausados: number;
      hoy: number;
      semana: number;
      ultima: string | null;
    }>(
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
