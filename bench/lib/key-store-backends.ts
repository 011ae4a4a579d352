/**
 * The three key-store backends for scenario 6, each with its baseline: the raw Keyv adapter of the
 * same backend (@keyv/sqlite, @keyv/postgres, @keyv/redis) on the same file, database or server,
 * in another namespace. PostgreSQL and Redis are real local servers (@feedbot/playground); when a
 * server cannot be had here, the backend is skipped with the reason instead of failing the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyvPostgres } from '@keyv/postgres';
import KeyvRedis from '@keyv/redis';
import type { RedisClientType } from '@redis/client';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { serverBinariesMissing, startPostgres, startRedis, type LocalServer, type ServerKind } from '@feedbot/playground';
import type { StoredKey } from '../../src/keys/store.js';

export type BackendKind = 'sqlite' | ServerKind;
export const BACKEND_KINDS: readonly BackendKind[] = ['sqlite', 'postgres', 'redis'];

const BASELINE_NAMESPACE = 'plain-baseline';

export interface BenchBackend {
  kind: BackendKind;
  /** DATABASE_URL for the KeyStore (carries the local server's password: never reported). */
  databaseUrl: string;
  /** The raw adapter, unencrypted, in BASELINE_NAMESPACE next to the KeyStore's records. */
  baseline: Keyv<StoredKey>;
  /** Server and settings, for the report. */
  describe(): Promise<string>;
  close(): Promise<void>;
}

export type PreparedBackend = { ok: true; backend: BenchBackend } | { ok: false; skipped: string };

export async function prepareBackend(kind: BackendKind): Promise<PreparedBackend> {
  if (kind === 'sqlite') return { ok: true, backend: sqliteBackend() };
  const missing = serverBinariesMissing(kind);
  if (missing) return { ok: false, skipped: missing };
  let server: LocalServer;
  try {
    server = kind === 'postgres' ? await startPostgres() : await startRedis();
  } catch (error) {
    return { ok: false, skipped: `${kind} server did not start (${firstLine(error)})` };
  }
  try {
    const databaseUrl = await server.newDatabase();
    const backend = kind === 'postgres' ? postgresBackend(databaseUrl) : redisBackend(databaseUrl);
    return { ok: true, backend: { ...backend, close: () => backend.close().finally(() => server.stop()) } };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

function sqliteBackend(): BenchBackend {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-keys-'));
  const file = join(dir, 'keys.sqlite');
  const baseline = new Keyv<StoredKey>({
    store: new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5_000 }),
    namespace: BASELINE_NAMESPACE,
    throwOnErrors: true,
  });
  return {
    kind: 'sqlite',
    databaseUrl: file,
    baseline,
    describe: () => Promise.resolve('one file, rollback journal, synchronous=FULL (fsync per write)'),
    async close() {
      await baseline.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(databaseUrl: string): BenchBackend {
  // Pool size as the KeyStore's own (src/keys/postgres.ts); operations are sequential anyway.
  const adapter = new KeyvPostgres({ uri: databaseUrl, max: 4 });
  const baseline = new Keyv<StoredKey>({ store: adapter, namespace: BASELINE_NAMESPACE, throwOnErrors: true });
  return {
    kind: 'postgres',
    databaseUrl,
    baseline,
    async describe() {
      const rows = (await adapter.query('SHOW server_version')) as Array<{ server_version?: string }>;
      return `PostgreSQL ${rows[0]?.server_version ?? '?'} on loopback, table public.keyv, fsync=off`;
    },
    close: () => baseline.disconnect(),
  };
}

function redisBackend(databaseUrl: string): BenchBackend {
  // As @keyv/redis's createKeyv builds it: the adapter owns the namespace, Keyv's key prefix is off.
  const adapter = new KeyvRedis(databaseUrl, { namespace: BASELINE_NAMESPACE, throwOnErrors: true });
  const baseline = new Keyv<StoredKey>({ store: adapter, namespace: BASELINE_NAMESPACE, useKeyPrefix: false, throwOnErrors: true });
  return {
    kind: 'redis',
    databaseUrl,
    baseline,
    async describe() {
      // A URL makes the adapter a single-node client (not a cluster or sentinel one).
      const info = await ((await adapter.getClient()) as RedisClientType).info('server');
      return `Redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'} on loopback, no persistence`;
    },
    close: () => baseline.disconnect(),
  };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 160);
}
