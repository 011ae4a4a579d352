/**
 * A connection of its own to the SQL database of DATABASE_URL (the SQLite file, or PostgreSQL),
 * for the tables the processes share beside the key store's (open confirmations). Statements are
 * written with `?` placeholders; PostgreSQL gets them numbered.
 */
import { KeyvSqlite } from '@keyv/sqlite';
import { ensureDatabaseFile, parseDatabaseUrl } from '../keys/database-url.js';

const BUSY_TIMEOUT_MS = 5_000;

export interface SqlRunner {
  readonly kind: 'sqlite' | 'postgres';
  query(sql: string, params: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export async function openSqlRunner(databaseUrl: string): Promise<SqlRunner> {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, connectionTimeoutMillis: 5_000 });
    pool.on('error', () => undefined);
    return {
      kind: 'postgres',
      async query(sql, params) {
        let n = 0;
        return (await pool.query(sql.replace(/\?/g, () => `$${++n}`), params as unknown[])).rows as Array<Record<string, unknown>>;
      },
      close: () => pool.end().catch(() => undefined),
    };
  }
  const location = parseDatabaseUrl(databaseUrl);
  await ensureDatabaseFile(location);
  const db = new KeyvSqlite({ uri: location.uri, busyTimeout: BUSY_TIMEOUT_MS });
  return {
    kind: 'sqlite',
    query: async (sql, params) => (await db.query(sql, ...params)) as Array<Record<string, unknown>>,
    close: () => db.disconnect().catch(() => undefined),
  };
}
