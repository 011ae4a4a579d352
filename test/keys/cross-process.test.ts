/**
 * The decrypted-key cache across processes sharing a server: a key another process replaced or
 * removed must stop being served at once (announced over Redis pub/sub or PostgreSQL
 * LISTEN/NOTIFY), not after the cache TTL. The stores here keep the default 30 s TTL, so a pass
 * within the polling window can only come from the announcement.
 */
import { afterEach, expect, test } from 'vitest';
import { generateSecret, parseSecret } from '../../src/keys/secret.js';
import { KeyStore } from '../../src/keys/store.js';
import type { StoredKey } from '../../src/keys/schema.js';
import { describeBackends, SHARED_BACKENDS } from './backends.js';
import { cleanEnv, runScript } from './cli.js';
import { canaryKey, GUILD_A, sampleKey } from './helpers.js';

const opened: KeyStore[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((store) => store.close()));
});

/** Polls get() until `check` holds; the cache would otherwise keep answering for 30 s. */
async function eventually(store: KeyStore, check: (key: StoredKey | undefined) => boolean, withinMs = 3_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (check(await store.get(GUILD_A))) return;
    if (Date.now() > deadline) throw new Error(`cache still served the old value after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeBackends(SHARED_BACKENDS, 'decrypted-key cache across processes', (ctx) => {
  test('a key replaced or removed through another connection is not served from the cache', async () => {
    const url = await ctx.newUrl();
    const secret = parseSecret(generateSecret());
    const reader = await KeyStore.open({ databaseUrl: url, secret });
    const writer = await KeyStore.open({ databaseUrl: url, secret });
    opened.push(reader, writer);
    await writer.set(GUILD_A, sampleKey(canaryKey('OLD')));
    expect((await reader.get(GUILD_A))?.apiKey).toBe(canaryKey('OLD'));

    await writer.set(GUILD_A, sampleKey(canaryKey('NEW')));
    await eventually(reader, (key) => key?.apiKey === canaryKey('NEW'));
    await writer.delete(GUILD_A);
    await eventually(reader, (key) => key === undefined);
  });

  test('a key changed by another OS process is not served from the cache', async () => {
    const url = await ctx.newUrl();
    const secretText = generateSecret();
    const reader = await KeyStore.open({ databaseUrl: url, secret: parseSecret(secretText) });
    opened.push(reader);
    await reader.set(GUILD_A, sampleKey(canaryKey('OLD')));
    expect((await reader.get(GUILD_A))?.apiKey).toBe(canaryKey('OLD'));

    const env = { DATABASE_URL: url, KEY_ENCRYPTION_SECRET: secretText, GUILD: GUILD_A };
    const set = await runScript('test/keys/fixtures/change-key.ts', cleanEnv({ ...env, ACTION: 'set', API_KEY: canaryKey('CHILD') }));
    expect(set.stdout, set.stderr).toContain('done');
    await eventually(reader, (key) => key?.apiKey === canaryKey('CHILD'));

    const removed = await runScript('test/keys/fixtures/change-key.ts', cleanEnv({ ...env, ACTION: 'delete' }));
    expect(removed.stdout, removed.stderr).toContain('done');
    await eventually(reader, (key) => key === undefined);
  });
});
