/**
 * Whether two store URLs name the same store, by what they mean rather than how they are
 * written: keys:migrate must not copy a store onto itself (the copy would read and rewrite the
 * same records, and --verify would always agree). `postgres://…@127.0.0.1/db` and
 * `postgresql://…@localhost:5432/db` are one store; so are `redis://localhost` and
 * `rediss://127.0.0.1:6379/0`, and `sqlite://./data/x.sqlite` and its absolute path. User names
 * and passwords do not change which store it is. Host names other than loopback are compared as
 * written (case-insensitive): resolving them here would need the network.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { StoreLocation } from './store-url.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0:0:0:0:0:0:0:1', 'ip6-localhost']);
const DEFAULT_PORTS = { postgres: 5432, redis: 6379 } as const;

/** A string that is equal for two locations exactly when they name the same store. */
function storeIdentity(location: StoreLocation): string {
  if (location.kind === 'sqlite') {
    if (location.file === ':memory:') return `sqlite::memory:${Math.random()}`;
    return `sqlite:${resolveExisting(location.file)}`;
  }
  const url = new URL(location.url);
  const host = url.hostname.toLowerCase();
  const where = `${LOOPBACK.has(host) ? 'loopback' : host}:${url.port === '' ? DEFAULT_PORTS[location.kind] : Number(url.port)}`;
  if (location.kind === 'postgres') return `postgres://${where}/${decodeURIComponent(url.pathname.replace(/^\//, ''))}`;
  return `redis://${where}/${location.database}`;
}

export function sameStore(a: StoreLocation, b: StoreLocation): boolean {
  return storeIdentity(a) === storeIdentity(b);
}

/** The file's real path (symlinks followed) when it, or its folder, exists; else as resolved. */
function resolveExisting(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    try {
      return path.join(realpathSync(path.dirname(file)), path.basename(file));
    } catch {
      return path.resolve(file);
    }
  }
}
