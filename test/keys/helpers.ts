import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createLogger, type Logger } from '../../src/logger.js';
import { generateSecret, parseSecret } from '../../src/keys/secret.js';
import { KeyStoreError } from '../../src/keys/errors.js';
import type { StoredKey } from '../../src/keys/schema.js';
import { KeyDatabase } from '../../src/keys/sqlite.js';
import { KeyStore } from '../../src/keys/store.js';
import { silentLogger } from '../../src/logger.js';

export const GUILD_A = '111111111111111111';
export const GUILD_B = '222222222222222222';

export function newSecret(): Buffer {
  return parseSecret(generateSecret());
}

/** A distinctive key, so finding it anywhere (file bytes, log lines) cannot be a coincidence. */
export function canaryKey(tag = 'A'): string {
  return `fk_live_CANARY${tag}_9f3c1e7b5d2a4806`;
}

export function sampleKey(apiKey = canaryKey(), overrides: Partial<StoredKey> = {}): StoredKey {
  return {
    apiKey,
    setBy: '333333333333333333',
    setAt: '2026-01-02T03:04:05.000Z',
    scopes: ['feeds:read', 'feeds:write'],
    scopesKnown: true,
    ...overrides,
  };
}

export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'feedbot-keys-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Bytes of every file in dir (the database plus any -journal/-wal/-shm SQLite left behind). */
export async function readAllFiles(dir: string): Promise<Array<{ name: string; bytes: Buffer }>> {
  const names = await readdir(dir);
  const files: Array<{ name: string; bytes: Buffer }> = [];
  for (const name of names) {
    try {
      files.push({ name, bytes: await readFile(path.join(dir, name)) });
    } catch {
      // A journal can disappear between readdir and readFile: it was committed and removed.
    }
  }
  return files;
}

export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  // A plain { write } object: pino writes to it synchronously, so lines are there as soon as the call returns.
  const destination = { write: (line: string) => void lines.push(line) };
  return { logger: createLogger({ name: 'test', level: 'trace', destination }), lines };
}

type Closable = { close(): Promise<void> };

/** A temporary folder for one test's key database; whatever the test opened is closed after it. */
export class TempKeyDatabase {
  /** Tests may point it elsewhere (a nested path, a directory) before opening. */
  databaseUrl: string;
  private readonly opened: Closable[] = [];

  constructor(readonly dir: string) {
    this.databaseUrl = `sqlite://${path.join(dir, 'feedbot.sqlite')}`;
  }

  track<T extends Closable>(handle: T): T {
    this.opened.push(handle);
    return handle;
  }

  openStore(opts: Partial<Parameters<typeof KeyStore.open>[0]> & { secret: Buffer }): Promise<KeyStore> {
    return KeyStore.open({ databaseUrl: this.databaseUrl, ...opts }).then((store) => this.track(store));
  }

  /** A second connection to the same file, for reading and tampering with records behind the store. */
  openRaw(): Promise<KeyDatabase> {
    return KeyDatabase.open({ databaseUrl: this.databaseUrl, logger: silentLogger() }).then((db) => this.track(db));
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.opened.splice(0).map((handle) => handle.close()));
  }
}

/** `keysTest('…', async ({ db }) => …)`: a test with its own temporary key database. */
export const keysTest = test.extend<{ db: TempKeyDatabase }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
  db: async ({}, use) => {
    const { dir, cleanup } = await makeTempDir();
    const db = new TempKeyDatabase(dir);
    await use(db);
    await db.closeAll();
    await cleanup();
  },
});

/** The KeyStoreError a promise rejects with (the test fails if it resolves or rejects otherwise). */
export async function errorOf(promise: Promise<unknown>): Promise<KeyStoreError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(KeyStoreError);
  return error as KeyStoreError;
}
