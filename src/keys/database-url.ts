/**
 * DATABASE_URL → a SQLite file path. Accepts `sqlite://relative/or/absolute.sqlite`,
 * `sqlite:///absolute.sqlite`, a plain path, and `sqlite://:memory:` (tests).
 *
 * A plain path that starts like a URL with its `://` mistyped (`redis//host`, `postgres:/host`,
 * `sqlite:file`) is refused: taken as a path it would become a SQLite file such as `./redis/host`,
 * and the bot would run on an empty local store instead of the server the operator meant.
 */
import { existsSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';

/** Every scheme DATABASE_URL takes, for messages. */
const SUPPORTED_SCHEMES =
  'sqlite://path/to/file.sqlite (or a file path), postgres://user:password@host:5432/database, or redis://:password@host:6379/0 (rediss:// for TLS)';

/** `word:` at the start, or a scheme this bot knows followed by `//` (its colon forgotten). */
const MISTYPED_URL = /^(?:([a-z][a-z0-9+.-]*):|(sqlite|postgres|postgresql|redis|rediss)\/\/)/i;

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
    throw new Error(`DATABASE_URL scheme "${scheme}" is not supported; use ${SUPPORTED_SCHEMES}`);
  } else {
    const mistyped = MISTYPED_URL.exec(trimmed);
    if (mistyped) {
      // Only the word before the typo is echoed: the rest may hold a password.
      throw new Error(`DATABASE_URL looks like a mistyped URL (it starts with "${mistyped[1] ?? mistyped[2]}" but not "scheme://"); use ${SUPPORTED_SCHEMES}`);
    }
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

/** The SQLite file's folder is missing outside the working folder (ensureDatabaseFile). */
export class MissingFolderError extends Error {
  override readonly name = 'MissingFolderError';
}

/**
 * Creates the folder (0700) and an empty database file readable by its owner only (0600) when
 * they are missing: SQLite would create the file with the process umask, usually world-readable,
 * and its journal files copy the database file's mode. An existing file keeps the mode its
 * operator gave it.
 *
 * Missing folders are created under the working folder only (`./data` by default): a path
 * elsewhere that does not exist is far more likely a typo than a wish, and creating
 * `/nonexistent/dir/` silently put the keys where nobody would look.
 */
export async function ensureDatabaseFile(location: SqliteLocation, cwd: string = process.cwd()): Promise<void> {
  if (location.file === ':memory:') return;
  const folder = path.dirname(location.file);
  const inside = path.relative(path.resolve(cwd), folder);
  const underCwd = inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside));
  if (!underCwd && !existsSync(folder)) {
    throw new MissingFolderError(
      `DATABASE_URL: the folder ${folder} does not exist; create it first (feedbot creates missing folders only under its working folder, ${path.resolve(cwd)})`,
    );
  }
  await mkdir(folder, { recursive: true, mode: 0o700 });
  try {
    await (await open(location.file, 'wx', 0o600)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
