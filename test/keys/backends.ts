/**
 * The three key-store backends for parameterised tests: SQLite in a temp dir, and PostgreSQL and
 * Redis as real servers on loopback (packages/playground/src/servers.ts), one server per test
 * file and one fresh database / index per test. Missing server binaries skip that backend with a
 * message, except under CI where they fail.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import type { KeyBackend } from '../../src/keys/backend.js';
import { openBackend } from '../../src/keys/backends.js';
import { missingServer, startPostgres, startRedis, type LocalServer } from '@feedbot/playground';
import { makeTempDir } from './helpers.js';

export type BackendKind = 'sqlite' | 'postgres' | 'redis';
export const BACKENDS: BackendKind[] = ['sqlite', 'postgres', 'redis'];
export const SHARED_BACKENDS: BackendKind[] = ['postgres', 'redis'];

export interface BackendContext {
  kind: BackendKind;
  /** A fresh, empty store location for one test. */
  newUrl(): Promise<string>;
  /** A fresh SQLite file URL (removed after the file's tests), whatever the backend. */
  newSqliteUrl(): Promise<string>;
  /** The server's base URL (postgres/redis), for building URLs to places that do not exist. */
  serverUrl(): string;
  /** A server of this kind of its own, for tests that stop it (the caller stops it). */
  startServer(): Promise<LocalServer>;
  /** A raw handle on a location, for reading and tampering behind the store; closed after the file. */
  openRaw(url: string, namespace?: string): Promise<KeyBackend>;
}

/** `describe` for each backend in `kinds`, with a server started before and stopped after. */
export function describeBackends(kinds: BackendKind[], title: string, body: (ctx: BackendContext) => void): void {
  for (const kind of kinds) {
    const skip = kind === 'sqlite' ? undefined : missingServer(kind);
    if (skip) console.warn(skip);
    describe.skipIf(skip !== undefined)(`${title} [${kind}]`, () => {
      let server: LocalServer | undefined;
      const cleanups: Array<() => Promise<void>> = [];
      beforeAll(async () => {
        if (kind === 'postgres') server = await startPostgres();
        if (kind === 'redis') server = await startRedis();
      });
      afterAll(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
        await server?.stop();
      });
      const newSqliteUrl = async () => {
        const { dir, cleanup } = await makeTempDir();
        cleanups.push(cleanup);
        return `sqlite://${path.join(dir, 'feedbot.sqlite')}`;
      };
      body({
        kind,
        newUrl: () => (server ? server.newDatabase() : newSqliteUrl()),
        newSqliteUrl,
        serverUrl() {
          if (!server) throw new Error('no server for sqlite');
          return server.url;
        },
        startServer() {
          return kind === 'postgres' ? startPostgres() : startRedis();
        },
        async openRaw(url, namespace) {
          const backend = await openBackend({ databaseUrl: url, logger: silentLogger(), ...(namespace ? { namespace } : {}) });
          cleanups.push(() => backend.close());
          return backend;
        },
      });
    });
  }
}
