/**
 * A small promise wrapper over the `sqlite3` package: a connection whose statements run in order
 * (serialize mode), WAL so the admin CLI can write while the sandbox runs. The store opens one
 * for reads and writes, plus a read-only one for its commit watch.
 */
import sqlite3 from 'sqlite3';

export type SqlParam = string | number | null;

/** A statement prepared once and run many times (saves a prepare/finalize per run). */
export interface PreparedQuery<T> {
  /** Runs to completion, so no read transaction is left open between runs. */
  all(): Promise<T[]>;
  finalize(): Promise<void>;
}

export interface OpenOptions {
  /** A second connection that only reads (the commit watch); the writer sets up WAL. */
  readOnly?: boolean;
}

export class Db {
  private constructor(private readonly conn: sqlite3.Database) {}

  static async open(file: string, options: OpenOptions = {}): Promise<Db> {
    const mode = options.readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
    const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db: sqlite3.Database = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
    });
    conn.serialize();
    const db = new Db(conn);
    // busy_timeout first: another process (the CLI) may hold the write lock right now.
    if (options.readOnly) await db.exec('PRAGMA busy_timeout = 5000;');
    else await db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
    return db;
  }

  run(sql: string, params: SqlParam[] = []): Promise<{ lastID: number; changes: number }> {
    return new Promise((resolve, reject) => {
      this.conn.run(sql, params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve({ lastID: this.lastID, changes: this.changes });
      });
    });
  }

  get<T>(sql: string, params: SqlParam[] = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.conn.get(sql, params, (err: Error | null, row: T | undefined) => (err ? reject(err) : resolve(row)));
    });
  }

  all<T>(sql: string, params: SqlParam[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.conn.all(sql, params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)));
    });
  }

  async prepare<T>(sql: string): Promise<PreparedQuery<T>> {
    const stmt = await new Promise<sqlite3.Statement>((resolve, reject) => {
      const s: sqlite3.Statement = this.conn.prepare(sql, (err: Error | null) => (err ? reject(err) : resolve(s)));
    });
    return {
      all: () => new Promise<T[]>((resolve, reject) => stmt.all((err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)))),
      finalize: () => new Promise<void>((resolve) => stmt.finalize(() => resolve())),
    };
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.conn.exec(sql, (err: Error | null) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.conn.close((err) => (err ? reject(err) : resolve())));
  }
}
