/** Opens the backend DATABASE_URL names: SQLite (default), PostgreSQL or Redis. */
import type { Logger } from '../logger.js';
import { checkNamespace, type KeyBackend } from './backend.js';
import { DEFAULT_NAMESPACE } from './crypto.js';
import { KeyStoreError, describeStorageError } from './errors.js';
import { PostgresKeyBackend } from './postgres.js';
import { RedisKeyBackend } from './redis.js';
import { KeyDatabase } from './sqlite.js';
import { parseStoreUrl, redactPassword } from './store-url.js';

export interface OpenBackendOptions {
  databaseUrl: string;
  namespace?: string;
  logger: Logger;
  /** SQLite: refuse to create a new file (tools that must act on an existing one). */
  mustExist?: boolean;
  /** SQLite: how long a statement waits for another connection's lock. */
  busyTimeoutMs?: number;
}

export async function openBackend(opts: OpenBackendOptions): Promise<KeyBackend> {
  const namespace = checkNamespace(opts.namespace ?? DEFAULT_NAMESPACE);
  let location;
  try {
    location = parseStoreUrl(opts.databaseUrl);
  } catch (error) {
    throw new KeyStoreError('invalid_input', error instanceof Error ? error.message : 'DATABASE_URL is not valid');
  }
  if (location.kind === 'sqlite') {
    return KeyDatabase.open({ ...opts, namespace });
  }
  if (location.kind === 'postgres') {
    return PostgresKeyBackend.open(location, namespace, opts.logger);
  }
  try {
    return await RedisKeyBackend.open(location, namespace, opts.logger);
  } catch (error) {
    const described = describeStorageError(error);
    throw new KeyStoreError('storage', `could not connect to ${location.where}: ${redactPassword(described.code ?? described.message, location.password)}`);
  }
}
