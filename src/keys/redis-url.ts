/**
 * REDIS_URL → where the replicas' shared state lives. The same reading as a Redis DATABASE_URL
 * (keys/store-url.ts: scheme, host, database index, password kept apart for redaction), with
 * messages naming REDIS_URL; like those, they never quote the URL (it may hold a password).
 */
import { parseStoreUrl, type StoreLocation } from './store-url.js';

export type RedisLocation = Extract<StoreLocation, { kind: 'redis' }>;

const EXAMPLE = 'redis://:password@host:6379/0 (rediss:// for TLS)';

export function parseRedisUrl(redisUrl: string): RedisLocation {
  const trimmed = redisUrl.trim();
  if (!/^rediss?:\/\//i.test(trimmed)) throw new Error(`REDIS_URL must start with redis:// or rediss://, e.g. ${EXAMPLE}`);
  try {
    return parseStoreUrl(trimmed) as RedisLocation;
  } catch (error) {
    // Every message of the store URL parser starts with the variable it was written for.
    throw new Error((error as Error).message.replace(/^DATABASE_URL/, 'REDIS_URL'));
  }
}
