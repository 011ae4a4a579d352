/**
 * A small promise wrapper over the `sqlite3` package: one connection, statements executed in
 * order (serialize mode), WAL so the admin CLI can write while the sandbox runs.
 */
import sqlite3 from 'sqlite3';

export type SqlParam = string | number | null;

export class Db {
  private constructor(private readonly conn: sqlite3.Database) {}

  static async open(file: string): Promise<Db> {
    const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db: sqlite3.Database = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
    });
    conn.serialize();
    const db = new Db(conn);
    // busy_timeout first: another process (the CLI) may hold the write lock right now.
    await db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
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

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.conn.exec(sql, (err: Error | null) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.conn.close((err) => (err ? reject(err) : resolve())));
  }
}
