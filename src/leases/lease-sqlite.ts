/**
 * The lease (lease.ts) in SQLite, in the coordination file beside the key store's (sql-runner.ts):
 * processes on one host that share DATABASE_URL's file share the lease. One INSERT … ON CONFLICT
 * … WHERE expired, atomic under SQLite's write lock; a process waits up to 5 s for another one's
 * write. Expired rows are deleted now and then (names carry their slot or id, so they are never
 * claimed again).
 */
import { randomUUID } from 'node:crypto';
import type { SlotLease } from './lease.js';
import { openSqlRunner, type SqlRunner } from './sql-runner.js';

const PURGE_EVERY_MS = 10 * 60_000;

export class SqliteLease implements SlotLease {
  readonly kind = 'sqlite';
  private readonly owner = randomUUID();
  private purgedAt = 0;

  private constructor(
    private readonly db: SqlRunner,
    private readonly now: () => number,
  ) {}

  static async open(databaseUrl: string, now: () => number = Date.now): Promise<SqliteLease> {
    const db = await openSqlRunner(databaseUrl);
    try {
      await db.query('CREATE TABLE IF NOT EXISTS feedbot_leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL)', []);
    } catch (error) {
      await db.close();
      throw error;
    }
    return new SqliteLease(db, now);
  }

  async claim(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const rows = await this.db.query(
      `INSERT INTO feedbot_leases (name, owner, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE feedbot_leases.expires_at <= ?
       RETURNING name`,
      [name, this.owner, now + Math.max(1, Math.round(ttlMs)), now],
    );
    if (now - this.purgedAt > PURGE_EVERY_MS) {
      this.purgedAt = now;
      await this.db.query('DELETE FROM feedbot_leases WHERE expires_at < ?', [now]).catch(() => undefined);
    }
    return rows.length === 1;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
