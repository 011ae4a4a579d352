/**
 * A connection of its own to the SQL database the processes share for coordination (the leases,
 * interaction claims and open confirmations): PostgreSQL when DATABASE_URL names one, else a
 * SQLite file beside the key store's (`<file>-coordination`), which processes on one host share.
 * Statements are written with `?` placeholders; PostgreSQL gets them numbered.
 *
 * Why a file of its own: a claim is written for every interaction, and the key store's file
 * fsyncs each write (synchronous = FULL, its keys must survive power loss): 2–10 ms a claim on
 * a VM's disk, against about 0.2 ms here, in WAL mode without fsync. What this file holds lives
 * minutes at most (a claim 15, a confirmation 1.5), so losing it to a power cut loses nothing a
 * user would miss: a file that no longer opens is replaced.
 */
import { rm } from 'node:fs/promises';
import { KeyvSqlite } from '@keyv/sqlite';
import { ensureDatabaseFile, parseDatabaseUrl, type SqliteLocation } from '../keys/database-url.js';

const BUSY_TIMEOUT_MS = 5_000;
/** SQLITE_CORRUPT and SQLITE_NOTADB: the file is not a database any more. */
const BROKEN_FILE = /SQLITE_CORRUPT|SQLITE_NOTADB/;

export interface SqlRunner {
  readonly kind: 'sqlite' | 'postgres';
  query(sql: string, params: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** The coordination file beside the key store's SQLite file (`:memory:` stays in memory). */
function coordinationLocation(location: SqliteLocation): SqliteLocation {
  if (location.file === ':memory:') return location;
  const file = `${location.file}-coordination`;
  return { file, uri: `sqlite://${file}` };
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
  const location = coordinationLocation(parseDatabaseUrl(databaseUrl));
  try {
    return await openSqlite(location);
  } catch (error) {
    if (location.file === ':memory:' || !BROKEN_FILE.test(String((error as { code?: unknown }).code ?? (error as Error).message))) throw error;
    for (const suffix of ['', '-wal', '-shm']) await rm(`${location.file}${suffix}`, { force: true });
    return openSqlite(location);
  }
}

/**
 * SQLite answers SQLITE_BUSY at once, without waiting out busy_timeout, where waiting could
 * deadlock: two connections switching a new file to WAL, or creating its table, at the same
 * moment (two processes starting together). The statement took no effect, so it is asked again,
 * within the same bound.
 */
export async function busyRetried<T>(run: () => Promise<T>): Promise<T> {
  const until = Date.now() + BUSY_TIMEOUT_MS;
  for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 100)) {
    try {
      return await run();
    } catch (error) {
      const code = String((error as { code?: unknown } | undefined)?.code ?? '');
      if (!code.startsWith('SQLITE_BUSY') || Date.now() + delayMs > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

async function openSqlite(location: SqliteLocation): Promise<SqlRunner> {
  await ensureDatabaseFile(location);
  const db = new KeyvSqlite({ uri: location.uri, busyTimeout: BUSY_TIMEOUT_MS });
  try {
    // WAL lets processes read while one writes; no fsync per commit (see above).
    await busyRetried(() => db.query('PRAGMA journal_mode = WAL'));
    await busyRetried(() => db.query('PRAGMA synchronous = OFF'));
  } catch (error) {
    await db.disconnect().catch(() => undefined);
    throw error;
  }
  return {
    kind: 'sqlite',
    query: async (sql, params) => (await busyRetried(() => db.query(sql, ...params))) as Array<Record<string, unknown>>,
    close: () => db.disconnect().catch(() => undefined),
  };
}
