/**
 * The sandbox's tables, and the column lists that read their rows straight into records
 * (records.ts): columns are aliased to the records' field names, so only what SQLite cannot hold
 * as is (JSON arrays, the space-separated scopes) needs converting.
 */
import { SCOPES, type ContentKind, type Scope } from '@feedbot/feed-api-contract';
import type { FeedRecord, KeyRecord } from './records.js';

const SCHEMA_VERSION = 1;

export const SCHEMA = `
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

/** `servers` rows as ServerRecord. */
export const SERVER_COLUMNS = 'guild_id AS guildId, plan, created_at AS createdAt';

/** `api_keys k` rows as KeyRow. */
export const KEY_COLUMNS = 'k.guild_id AS guildId, k.last4, k.scopes, k.rate_limit AS rateLimit, k.created_at AS createdAt';
export type KeyRow = Omit<KeyRecord, 'scopes'> & { scopes: string };

/** `feeds f` rows as FeedRow, with the time of the feed's newest post. */
export const FEED_COLUMNS = `f.id, f.guild_id AS guildId, f.cuenta, f.canal_id AS canalId, f.estado, f.tipos, f.filtros, f.creado,
  (SELECT MAX(p.publicado_discord) FROM posts p WHERE p.feed_id = f.id) AS ultimoPost`;
export type FeedRow = Omit<FeedRecord, 'tipos' | 'filtros'> & { tipos: string; filtros: string };

/** `posts` rows as PostRecord. */
export const POST_COLUMNS =
  'code, feed_id AS feedId, guild_id AS guildId, cuenta, tipo, caption, publicado_en AS publicadoEn, publicado_discord AS publicadoDiscord';

export function toFeed(row: FeedRow): FeedRecord {
  return { ...row, tipos: JSON.parse(row.tipos) as ContentKind[], filtros: JSON.parse(row.filtros) as unknown[] };
}

/** KeyRow (plus whatever else was selected with it) with its scopes as a list; unknown scopes are dropped. */
export function toKey<R extends KeyRow>(row: R): Omit<R, 'scopes'> & { scopes: Scope[] } {
  return { ...row, scopes: row.scopes.split(' ').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)) };
}
