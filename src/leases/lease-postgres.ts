/**
 * The lease (lease.ts) in PostgreSQL: one INSERT … ON CONFLICT that takes the row when it is
 * absent or expired, atomic on the server. Expired rows are deleted now and then (names carry
 * their slot, so they are never claimed again).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { SlotLease } from './lease.js';

const PURGE_EVERY_MS = 10 * 60_000;
const TABLE_CREATED_ELSEWHERE = new Set(['23505', '42710', '42P07']);

export class PostgresLease implements SlotLease {
  readonly kind = 'postgres';
  private readonly owner = randomUUID();
  private purgedAt = 0;

  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string): Promise<PostgresLease> {
    const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
    pool.on('error', () => undefined);
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS feedbot_leases (name text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL)');
    } catch (error) {
      // Replicas creating the table at the same instant: IF NOT EXISTS does not serialize them, and
      // the losers fail on the catalog instead (23505 unique violation on pg_type, 42710 "type
      // already exists", 42P07 "relation already exists"): the table is there either way.
      if (!TABLE_CREATED_ELSEWHERE.has((error as { code?: string }).code ?? '')) {
        await pool.end().catch(() => undefined);
        throw error;
      }
    }
    return new PostgresLease(pool);
  }

  async claim(name: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO feedbot_leases (name, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at WHERE feedbot_leases.expires_at <= now()`,
      [name, this.owner, Math.max(1, Math.round(ttlMs))],
    );
    if (Date.now() - this.purgedAt > PURGE_EVERY_MS) {
      this.purgedAt = Date.now();
      await this.pool.query('DELETE FROM feedbot_leases WHERE expires_at < now()').catch(() => undefined);
    }
    return rowCount === 1;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
