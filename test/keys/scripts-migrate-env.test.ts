/**
 * keys:migrate:
 * - `--from URL` puts the password in every local user's `ps` while the copy runs: the URLs can
 *   come from environment variables instead (`--from-env SOURCE_URL --to-env TARGET_URL`);
 * - the same-store check compares what the URLs mean, not their text (`postgres://…@127.0.0.1`
 *   and `postgresql://…@localhost` are the same store);
 * - a store that dies mid-copy says which side failed, and that a re-run completes the copy.
 * Real PostgreSQL and Redis on loopback (test/keys/backends.ts), the script as a child process.
 */
import path from 'node:path';
import { expect, test } from 'vitest';
import { KeyStore } from '../../src/keys/store.js';
import { migrateKeys } from '../../src/keys/migrate.js';
import { sameStore } from '../../src/keys/store-identity.js';
import { parseStoreUrl } from '../../src/keys/store-url.js';
import { parseSecret, generateSecret } from '../../src/keys/secret.js';
import { describeBackends, SHARED_BACKENDS } from './backends.js';
import { cleanEnv, runScript } from './cli.js';
import { GUILD_A, GUILD_B, canaryKey, sampleKey } from './helpers.js';

const SCRIPT = 'src/scripts/migrate-keys.ts';

describeBackends(SHARED_BACKENDS, 'keys:migrate with URLs from the environment', (ctx) => {
  test('--from-env / --to-env copy the records; no URL is on the command line', async () => {
    const sqliteUrl = await ctx.newSqliteUrl();
    const serverUrl = await ctx.newUrl();
    const password = decodeURIComponent(new URL(serverUrl).password);
    const secretText = generateSecret();
    const source = await KeyStore.open({ databaseUrl: sqliteUrl, secret: parseSecret(secretText) });
    await source.set(GUILD_A, sampleKey(canaryKey('A')));
    await source.close();

    const args = ['--from-env', 'SOURCE_URL', '--to-env', 'TARGET_URL'];
    const env = cleanEnv({ SOURCE_URL: sqliteUrl, TARGET_URL: serverUrl });
    const result = await runScript(SCRIPT, env, 30_000, args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('migrated 1 records: copied 1, already present 0');
    expect(args.join(' ')).not.toContain(password);
    expect(result.stdout + result.stderr).not.toContain(password);
    const verified = await runScript(SCRIPT, env, 30_000, [...args, '--verify']);
    expect(verified.stdout).toContain('verified 1: matching 1');

    const unset = await runScript(SCRIPT, cleanEnv({}), 30_000, ['--from-env', 'NOPE_URL', '--to', sqliteUrl]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('NOPE_URL is not set');
    const both = await runScript(SCRIPT, env, 30_000, ['--from', sqliteUrl, '--from-env', 'SOURCE_URL', '--to-env', 'TARGET_URL']);
    expect(both.code).toBe(2);
  });

  test('refuses two spellings of one store (scheme alias, localhost vs 127.0.0.1, default port)', async () => {
    const serverUrl = new URL(await ctx.newUrl());
    const other = new URL(serverUrl.toString());
    other.hostname = 'localhost';
    if (ctx.kind === 'postgres') other.protocol = 'postgresql:';
    const result = await runScript(SCRIPT, cleanEnv({ A: serverUrl.toString(), B: other.toString() }), 30_000, ['--from-env', 'A', '--to-env', 'B']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('same key store');
    expect(result.stderr).not.toContain(decodeURIComponent(serverUrl.password));
  });

  test('a target that dies mid-copy: the message names the target and says a re-run completes the copy', async () => {
    const server = await ctx.startServer();
    let stopped = false;
    try {
      const sqliteUrl = await ctx.newSqliteUrl();
      const targetUrl = await server.newDatabase();
      const secret = parseSecret(generateSecret());
      const source = await KeyStore.open({ databaseUrl: sqliteUrl, secret });
      await source.set(GUILD_A, sampleKey(canaryKey('A')));
      await source.set(GUILD_B, sampleKey(canaryKey('B')));
      await source.close();
      const error = (await migrateKeys({
        from: sqliteUrl,
        to: targetUrl,
        onProgress: (done) => {
          if (done === 1 && !stopped) {
            stopped = true;
            return server.stop();
          }
          return undefined;
        },
      }).catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(/^the target \(--to, .*127\.0\.0\.1:\d+.*\) failed after 1 of 2 records/);
      expect(error.message).toContain('re-run the same command to complete the copy');
      expect(error.message).not.toContain(decodeURIComponent(new URL(targetUrl).password));
    } finally {
      if (!stopped) await server.stop();
    }
  });
});

test('sameStore compares what the URLs mean', () => {
  const same = (a: string, b: string) => sameStore(parseStoreUrl(a, '/srv/bot'), parseStoreUrl(b, '/srv/bot'));
  expect(same('postgres://bot:pw@127.0.0.1/feedbot', 'postgresql://other@localhost:5432/feedbot')).toBe(true);
  expect(same('postgres://bot@[::1]:5432/feedbot', 'postgres://bot@127.0.0.1/feedbot')).toBe(true);
  expect(same('postgres://bot@db.internal/feedbot', 'postgres://bot@DB.internal:5432/feedbot')).toBe(true);
  expect(same('postgres://bot@db/feedbot', 'postgres://bot@db/other')).toBe(false);
  expect(same('postgres://bot@db:5433/feedbot', 'postgres://bot@db/feedbot')).toBe(false);
  expect(same('redis://:pw@localhost', 'redis://127.0.0.1:6379/0')).toBe(true);
  expect(same('redis://localhost/1', 'redis://localhost/2')).toBe(false);
  expect(same('sqlite://./data/x.sqlite', path.join('/srv/bot', 'data', 'x.sqlite'))).toBe(true);
  expect(same('sqlite://./data/x.sqlite', 'sqlite://./data/y.sqlite')).toBe(false);
  expect(same('sqlite://./x.sqlite', 'postgres://bot@localhost/x')).toBe(false);
});
