/**
 * DATABASE_URL → a SQLite file path. Accepts `sqlite://relative/or/absolute.sqlite`,
 * `sqlite:///absolute.sqlite`, a plain path, and `sqlite://:memory:` (tests).
 */
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';

export interface SqliteLocation {
  /** Absolute file path, or ':memory:'. */
  file: string;
  /** What @keyv/sqlite expects: 'sqlite://' + file. */
  uri: string;
}

export function parseDatabaseUrl(databaseUrl: string, cwd: string = process.cwd()): SqliteLocation {
  if (typeof databaseUrl !== 'string' || databaseUrl.trim() === '') {
    throw new Error('DATABASE_URL is empty');
  }
  const trimmed = databaseUrl.trim();
  let target: string;
  if (trimmed.startsWith('sqlite://')) {
    target = trimmed.slice('sqlite://'.length);
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    // Only the scheme is echoed: URLs of other databases can embed passwords.
    const scheme = trimmed.slice(0, trimmed.indexOf(':'));
    throw new Error(`DATABASE_URL scheme "${scheme}" is not supported; use sqlite://path/to/file.sqlite or a file path`);
  } else {
    target = trimmed;
  }
  if (target === '') throw new Error('DATABASE_URL names no file');
  if (target === ':memory:') return { file: ':memory:', uri: 'sqlite://:memory:' };
  if (target.includes('?') || target.startsWith('file:')) {
    throw new Error('DATABASE_URL must be a plain SQLite file path (no query string or file: URI)');
  }
  const file = path.resolve(cwd, target);
  return { file, uri: `sqlite://${file}` };
}

/**
 * Creates the folder (0700) and an empty database file readable by its owner only (0600) when
 * they are missing: SQLite would create the file with the process umask, usually world-readable,
 * and its journal files copy the database file's mode. An existing file keeps the mode its
 * operator gave it.
 */
export async function ensureDatabaseFile(location: SqliteLocation): Promise<void> {
  if (location.file === ':memory:') return;
  await mkdir(path.dirname(location.file), { recursive: true, mode: 0o700 });
  try {
    await (await open(location.file, 'wx', 0o600)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
