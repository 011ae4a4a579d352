/**
 * `npm run keys:migrate` and `npm run keys:rotate` on the shared backends, as processes: SQLite → PostgreSQL → Redis and back, records copied
 * without decrypting (byte-identical envelopes), idempotent, verified, passwords never printed.
 */
import { expect, test } from 'vitest';
import { generateSecret, parseSecret } from '../../src/keys/secret.js';
import { KeyStore } from '../../src/keys/store.js';
import { describeBackends, SHARED_BACKENDS } from './backends.js';
import { cleanEnv, runScript } from './cli.js';
import { canaryKey, GUILD_A, GUILD_B, sampleKey } from './helpers.js';

const SCRIPT = 'src/scripts/migrate-keys.ts';
const migrate = (args: string[]) => runScript(SCRIPT, cleanEnv({}), 30_000, args);

describeBackends(SHARED_BACKENDS, 'keys:migrate', (ctx) => {
  test('copies every record from SQLite and back, idempotently, and verifies both sides', async () => {
    const sqliteUrl = await ctx.newSqliteUrl();
    const serverUrl = await ctx.newUrl();
    const password = decodeURIComponent(new URL(serverUrl).password);
    const secretText = generateSecret();
    const source = await KeyStore.open({ databaseUrl: sqliteUrl, secret: parseSecret(secretText) });
    await source.set(GUILD_A, sampleKey(canaryKey('A')));
    await source.set(GUILD_B, sampleKey(canaryKey('B')));
    await source.close();

    const first = await migrate(['--from', sqliteUrl, '--to', serverUrl]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('migrated 2 records: copied 2, already present 0');
    expect(first.stderr).toContain('progress: 2/2 records');
    const again = await migrate(['--from', sqliteUrl, '--to', serverUrl]);
    expect(again.stdout).toContain('copied 0, already present 2');
    const verified = await migrate(['--from', sqliteUrl, '--to', serverUrl, '--verify']);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('verified 2: matching 2, missing 0, different 0');
    for (const run of [first, again, verified]) expect(run.stdout + run.stderr).not.toContain(password);

    const migrated = await KeyStore.open({ databaseUrl: serverUrl, secret: parseSecret(secretText), cacheSize: 0 });
    expect((await migrated.get(GUILD_B))?.apiKey).toBe(canaryKey('B'));
    await migrated.set(GUILD_A, sampleKey(canaryKey('A2')));
    await migrated.close();

    const differs = await migrate(['--from', serverUrl, '--to', sqliteUrl, '--verify']);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain(`different guild ids: ${GUILD_A}`);
    const back = await migrate(['--from', serverUrl, '--to', sqliteUrl]);
    expect(back.stdout).toContain('copied 1, already present 1');
    const home = await KeyStore.open({ databaseUrl: sqliteUrl, secret: parseSecret(secretText), cacheSize: 0 });
    expect((await home.get(GUILD_A))?.apiKey).toBe(canaryKey('A2'));
    await home.close();
  });

  test('exits 2 without the password when a side does not answer or arguments are wrong', async () => {
    const serverUrl = await ctx.newUrl();
    const password = decodeURIComponent(new URL(serverUrl).password);
    const down = new URL(serverUrl);
    down.port = '1';
    const refused = await migrate(['--from', down.toString(), '--to', await ctx.newSqliteUrl()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/keys:migrate: /);
    const usage = await migrate(['--from', serverUrl, '--bogus', serverUrl]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run keys:migrate');
    const same = await migrate(['--from', serverUrl, '--to', serverUrl]);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('same key store');
    for (const run of [refused, usage, same]) expect(run.stdout + run.stderr).not.toContain(password);
  });
});

describeBackends(SHARED_BACKENDS, 'keys:rotate', (ctx) => {
  test('rotates every record on a shared server, and is safe to re-run', async () => {
    const url = await ctx.newUrl();
    const password = decodeURIComponent(new URL(url).password);
    const oldText = generateSecret();
    const newText = generateSecret();
    const store = await KeyStore.open({ databaseUrl: url, secret: parseSecret(oldText) });
    await store.set(GUILD_A, sampleKey(canaryKey('A')));
    await store.close();
    const env = cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, NEW_KEY_ENCRYPTION_SECRET: newText, DATABASE_URL: url });
    const first = await runScript('src/scripts/rotate-keys.ts', env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('rotated 1, already current 0, failed 0');
    const again = await runScript('src/scripts/rotate-keys.ts', env);
    expect(again.stdout).toContain('rotated 0, already current 1, failed 0');
    for (const run of [first, again]) expect(run.stdout + run.stderr).not.toContain(password);
    const rotated = await KeyStore.open({ databaseUrl: url, secret: parseSecret(newText), cacheSize: 0 });
    expect((await rotated.get(GUILD_A))?.apiKey).toBe(canaryKey('A'));
    await rotated.close();
  });
});

test('the migration needs both --from and --to', async () => {
  const result = await migrate([]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('usage: npm run keys:migrate -- --from-env VAR --to-env VAR');
});
