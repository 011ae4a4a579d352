/**
 * A small promise wrapper over the `sqlite3` package: one connection, statements executed in
 * order (serialize mode), WAL so the admin CLI can write while the sandbox runs.
 */
import sqlite3 from 'sqlite3';

export type SqlParam = string | number | null;

export interface Queryable {
  run(sql: string, params?: SqlParam[]): Promise<{ lastID: number; changes: number }>;
  get<T>(sql: string, params?: SqlParam[]): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlParam[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
}

export class Db implements Queryable {
  /** Held by a transaction; other callers wait so their statements do not join it. */
  private gate: Promise<void> = Promise.resolve();
  private readonly raw: Queryable;

  private constructor(private readonly conn: sqlite3.Database) {
    this.raw = {
      run: (sql, params = []) =>
        new Promise((resolve, reject) => {
          conn.run(sql, params, function (this: sqlite3.RunResult, err: Error | null) {
            if (err) reject(err);
            else resolve({ lastID: this.lastID, changes: this.changes });
          });
        }),
      get: <T>(sql: string, params: SqlParam[] = []) =>
        new Promise<T | undefined>((resolve, reject) => {
          conn.get(sql, params, (err: Error | null, row: T | undefined) => (err ? reject(err) : resolve(row)));
        }),
      all: <T>(sql: string, params: SqlParam[] = []) =>
        new Promise<T[]>((resolve, reject) => {
          conn.all(sql, params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)));
        }),
      exec: (sql) =>
        new Promise((resolve, reject) => {
          conn.exec(sql, (err: Error | null) => (err ? reject(err) : resolve()));
        }),
    };
  }

  static async open(file: string): Promise<Db> {
    const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
      const db: sqlite3.Database = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
    });
    conn.serialize();
    const db = new Db(conn);
    // busy_timeout first: another process (the CLI) may hold the write lock right now.
    await db.raw.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
    return db;
  }

  async run(sql: string, params?: SqlParam[]): Promise<{ lastID: number; changes: number }> {
    await this.gate;
    return this.raw.run(sql, params);
  }

  async get<T>(sql: string, params?: SqlParam[]): Promise<T | undefined> {
    await this.gate;
    return this.raw.get<T>(sql, params);
  }

  async all<T>(sql: string, params?: SqlParam[]): Promise<T[]> {
    await this.gate;
    return this.raw.all<T>(sql, params);
  }

  async exec(sql: string): Promise<void> {
    await this.gate;
    return this.raw.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let release!: () => void;
    const lock = new Promise<void>((resolve) => (release = resolve));
    const previous = this.gate;
    this.gate = previous.then(() => lock);
    await previous;
    try {
      await this.raw.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.raw);
        await this.raw.exec('COMMIT');
        return result;
      } catch (err) {
        await this.raw.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      release();
    }
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.conn.close((err) => (err ? reject(err) : resolve())));
  }
}
