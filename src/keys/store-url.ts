/**
 * DATABASE_URL → which backend holds the keys. `sqlite://…` or a plain path (see database-url.ts),
 * `postgres://` / `postgresql://`, `redis://` / `rediss://`. Messages name the scheme at most:
 * these URLs carry passwords, so neither the URL nor any part of it after the scheme is echoed.
 */
import { parseDatabaseUrl, type SqliteLocation } from './database-url.js';

export type StoreLocation =
  | ({ kind: 'sqlite' } & SqliteLocation)
  | { kind: 'postgres'; url: string; where: string; password: string | undefined }
  | { kind: 'redis'; url: string; where: string; password: string | undefined; database: number };

const SERVER_SCHEME = /^(postgres|postgresql|redis|rediss):\/\//i;

export function parseStoreUrl(databaseUrl: string, cwd?: string): StoreLocation {
  const trimmed = typeof databaseUrl === 'string' ? databaseUrl.trim() : '';
  const scheme = SERVER_SCHEME.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'sqlite', ...parseDatabaseUrl(databaseUrl, cwd) };
  const kind = scheme.startsWith('postgres') ? 'postgres' : 'redis';
  const example =
    kind === 'postgres' ? 'postgres://user:password@host:5432/database' : `${scheme}://:password@host:6379/0 (the number is the database index)`;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new Error(`DATABASE_URL is not a valid ${scheme} URL; expected ${example}`);
  }
  if (url.hostname === '') throw new Error(`DATABASE_URL (${scheme}) names no host; expected ${example}`);
  let password: string | undefined;
  try {
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    // decodeURIComponent's own message is "URI malformed", which names neither the variable nor the fix.
    throw new Error(`DATABASE_URL (${scheme}) password has a malformed % escape; write a literal % as %25 (and @ as %40, : as %3A, / as %2F)`);
  }
  const database = url.pathname.replace(/^\//, '');
  if (kind === 'postgres') {
    if (database === '' || database.includes('/')) throw new Error(`DATABASE_URL (${scheme}) names no database; expected ${example}`);
    return { kind, url: trimmed, where: `${scheme}://${url.host}/${database}`, password };
  }
  if (database !== '' && !/^\d{1,2}$/.test(database)) {
    throw new Error(`DATABASE_URL (${scheme}) database must be an index number; expected ${example}`);
  }
  const index = database === '' ? 0 : Number(database);
  return { kind, url: trimmed, where: `${scheme}://${url.host}/${index}`, password, database: index };
}

/** Replaces the URL's password wherever a driver message might quote it. */
export function redactPassword(text: string, password: string | undefined): string {
  if (!password) return text;
  let out = text;
  for (const form of new Set([password, encodeURIComponent(password)])) out = out.split(form).join('***');
  return out;
}

/** The password DATABASE_URL carries, if any (undefined for SQLite and unparsable URLs), to mask it in messages. */
export function passwordOf(databaseUrl: string): string | undefined {
  try {
    const location = parseStoreUrl(databaseUrl);
    return location.kind === 'sqlite' ? undefined : location.password;
  } catch {
    return undefined;
  }
}
