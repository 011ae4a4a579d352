/** Opens the backend DATABASE_URL names: SQLite (default), PostgreSQL or Redis. */
import type { Logger } from '../logger.js';
import { checkNamespace, type KeyBackend } from './backend.js';
import { DEFAULT_NAMESPACE } from './crypto.js';
import { KeyStoreError } from './errors.js';
// postgres.ts and redis.ts (pg, @redis/client and their Keyv adapters) are imported where a
// configuration names that backend: a bot on SQLite never loads them, which shortened start-up.
import { KeyDatabase } from './sqlite.js';
import { parseStoreUrl } from './store-url.js';
import { unreachable } from './unreachable.js';

interface OpenBackendOptions {
  databaseUrl: string;
  namespace?: string;
  logger: Logger;
  /** SQLite: refuse to create a new file (tools that must act on an existing one). */
  mustExist?: boolean;
  /** SQLite: how long a statement waits for another connection's lock. */
  busyTimeoutMs?: number;
  /** What the operator set the URL as, for messages (default DATABASE_URL; keys:migrate: --from / --to). */
  variable?: string;
}

/**
 * Opens the backend and, for a server, makes sure it answers now: a server that is down, refuses
 * the password or never answers fails here with one StoreUnreachableError line (unreachable.ts),
 * not later inside the first query with a driver's message.
 */
export async function openBackend(opts: OpenBackendOptions): Promise<KeyBackend> {
  const namespace = checkNamespace(opts.namespace ?? DEFAULT_NAMESPACE);
  const variable = opts.variable ?? 'DATABASE_URL';
  let location;
  try {
    location = parseStoreUrl(opts.databaseUrl);
  } catch (error) {
    // The parser's messages start with DATABASE_URL, the variable it was written for.
    const message = error instanceof Error ? error.message : 'DATABASE_URL is not valid';
    throw new KeyStoreError('invalid_input', message.replace(/^DATABASE_URL/, variable));
  }
  if (location.kind === 'sqlite') {
    return KeyDatabase.open({ ...opts, namespace });
  }
  if (location.kind === 'postgres') {
    const { PostgresKeyBackend } = await import('./postgres.js');
    const backend = PostgresKeyBackend.open(location, namespace, opts.logger);
    try {
      await backend.ping();
    } catch (error) {
      await backend.close().catch(() => undefined);
      throw unreachable(variable, location, error);
    }
    return backend;
  }
  const { RedisKeyBackend } = await import('./redis.js');
  try {
    return await RedisKeyBackend.open(location, namespace, opts.logger);
  } catch (error) {
    throw unreachable(variable, location, error);
  }
}
