/**
 * Open confirmations (pending.ts) in the key store's own database (DATABASE_URL): the SQLite
 * file that processes on one host share, or PostgreSQL. Two gateway processes holding one shard
 * during a deploy each receive every interaction, and the claim (claims.ts) gives the question to
 * one and the press to whichever wins it: the confirmation must be where both find it. (With
 * REDIS_URL the replicas' Redis holds them instead: src/replicas/redis-pending.ts.)
 *
 * One table, one row per value (`v:` + key) or hold (`h:` + key, the owner as its value), with
 * its guild (forgetting a server) and its expiry in ms since the epoch by the writer's clock. A
 * take is one DELETE … RETURNING, a claim one INSERT … ON CONFLICT … WHERE expired: atomic in
 * both databases, so a confirmation is answered once whichever process each press reaches.
 *
 * Failing: a database that does not answer fails the operation with a user error saying to try
 * again (nothing was changed), as the Redis store does.
 */
import type { SqlRunner } from '../leases/sql-runner.js';
import { ConfirmationsUnavailableError, type PendingStore } from './pending.js';

const TABLE = 'feedbot_pending';
const PURGE_EVERY_MS = 10 * 60_000;
/** Replicas creating the table at once: PostgreSQL's catalog refuses the losers (the table is there). */
const TABLE_CREATED_ELSEWHERE = new Set(['23505', '42710', '42P07']);

export class SqlPendingStore implements PendingStore {
  private purgedAt = 0;

  private constructor(
    private readonly db: SqlRunner,
    private readonly now: () => number,
  ) {}

  static async open(db: SqlRunner, now: () => number = Date.now): Promise<SqlPendingStore> {
    try {
      await db.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (name TEXT PRIMARY KEY, guild_id TEXT NOT NULL, value TEXT NOT NULL, expires_at BIGINT NOT NULL)`, []);
    } catch (error) {
      if (!TABLE_CREATED_ELSEWHERE.has((error as { code?: string }).code ?? '')) throw error;
    }
    return new SqlPendingStore(db, now);
  }

  async put(key: string, json: string, ttlMs: number): Promise<void> {
    await this.shared(() =>
      this.db.query(
        `INSERT INTO ${TABLE} (name, guild_id, value, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET guild_id = excluded.guild_id, value = excluded.value, expires_at = excluded.expires_at`,
        [`v:${key}`, guildOf(key), json, this.now() + Math.max(1, Math.ceil(ttlMs))],
      ),
    );
    await this.purge();
  }

  async take(key: string): Promise<string | undefined> {
    const rows = await this.shared(() => this.db.query(`DELETE FROM ${TABLE} WHERE name = ? RETURNING value, expires_at`, [`v:${key}`]));
    const row = rows[0];
    if (!row || Number(row.expires_at) <= this.now() || typeof row.value !== 'string') return undefined;
    return row.value;
  }

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const rows = await this.shared(() =>
      this.db.query(
        `INSERT INTO ${TABLE} (name, guild_id, value, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE ${TABLE}.expires_at <= ?
         RETURNING name`,
        [`h:${key}`, guildOf(key), owner, now + Math.max(1, Math.ceil(ttlMs)), now],
      ),
    );
    return rows.length === 1;
  }

  async release(key: string, owner: string): Promise<void> {
    await this.shared(() => this.db.query(`DELETE FROM ${TABLE} WHERE name = ? AND value = ?`, [`h:${key}`, owner]));
  }

  async forgetGuild(guildId: string): Promise<number> {
    if (!/^\d{1,32}$/.test(guildId)) throw new TypeError('guild id must be a Discord snowflake');
    return (await this.shared(() => this.db.query(`DELETE FROM ${TABLE} WHERE guild_id = ? RETURNING name`, [guildId]))).length;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Values nobody took (a process stopped before its timer ran) and holds that lapsed. */
  private async purge(): Promise<void> {
    const now = this.now();
    if (now - this.purgedAt < PURGE_EVERY_MS) return;
    this.purgedAt = now;
    await this.db.query(`DELETE FROM ${TABLE} WHERE expires_at < ?`, [now]).catch(() => undefined);
  }

  private async shared<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch {
      throw new ConfirmationsUnavailableError();
    }
  }
}

/** The guild of a confirmation key (`kind:guild:asked`, src/interactions/confirmations.ts). */
function guildOf(key: string): string {
  return key.split(':')[1] ?? '';
}
