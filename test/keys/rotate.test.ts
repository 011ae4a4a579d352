import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretKid } from '../../src/keys/crypto.js';
import { KeyDatabase } from '../../src/keys/sqlite.js';
import { KeyStore, KeyStoreError, rotateKeys } from '../../src/keys/store.js';
import { silentLogger } from '../../src/logger.js';
import { GUILD_A, canaryKey, capturingLogger, makeTempDir, newSecret, readAllFiles, sampleKey } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let databaseUrl: string;
const opened: Array<{ close: () => Promise<void> }> = [];

const guilds = Array.from({ length: 12 }, (_, index) => String(400000000000000000n + BigInt(index)));

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  databaseUrl = `sqlite://${path.join(dir, 'feedbot.sqlite')}`;
});

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((handle) => handle.close()));
  await cleanup();
});

async function seed(secret: Buffer, ids = guilds, namespace?: string): Promise<void> {
  const store = await KeyStore.open({ databaseUrl, secret, ...(namespace ? { namespace } : {}) });
  await Promise.all(ids.map((guild) => store.set(guild, sampleKey(`fk_live_CANARY_${guild}`))));
  await store.close();
}

async function readAll(secret: Buffer, ids = guilds): Promise<Array<string | KeyStoreError>> {
  const store = await KeyStore.open({ databaseUrl, secret, cacheSize: 0 });
  opened.push(store);
  const results = await Promise.all(
    ids.map((guild) => store.get(guild).then((key) => key?.apiKey ?? 'missing', (error: KeyStoreError) => error)),
  );
  await store.close();
  return results;
}

async function kidsOnDisk(): Promise<string[]> {
  const db = await KeyDatabase.open({ databaseUrl, logger: silentLogger() });
  opened.push(db);
  const entries = await db.listEntries();
  await db.close();
  return entries.map((entry) => (entry.record as { kid: string }).kid);
}

describe('rotateKeys', () => {
  it('re-encrypts every record: the new secret reads them, the old one no longer does', async () => {
    const oldSecret = newSecret();
    const newSecret_ = newSecret();
    await seed(oldSecret);
    const result = await rotateKeys({ databaseUrl, oldSecret, newSecret: newSecret_ });
    expect(result).toEqual({ rotated: guilds.length, alreadyCurrent: 0, failed: [] });

    expect(await readAll(newSecret_)).toEqual(guilds.map((guild) => `fk_live_CANARY_${guild}`));
    const withOld = await readAll(oldSecret);
    expect(withOld.every((value) => value instanceof KeyStoreError && value.reason === 'wrong_secret')).toBe(true);
    expect(new Set(await kidsOnDisk())).toEqual(new Set([secretKid(newSecret_)]));
    for (const file of await readAllFiles(dir)) expect(file.bytes.includes('CANARY'), file.name).toBe(false);
  });

  it('is idempotent: a re-run counts everything as already current and changes nothing', async () => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(oldSecret);
    await rotateKeys({ databaseUrl, oldSecret, newSecret: next });
    const before = (await readAllFiles(dir)).find((file) => file.name === 'feedbot.sqlite')!.bytes;
    const again = await rotateKeys({ databaseUrl, oldSecret, newSecret: next });
    expect(again).toEqual({ rotated: 0, alreadyCurrent: guilds.length, failed: [] });
    const after = (await readAllFiles(dir)).find((file) => file.name === 'feedbot.sqlite')!.bytes;
    expect(after.equals(before)).toBe(true);
  });

  it('finishes a rotation that stopped half-way (mixed old and new records)', async () => {
    const oldSecret = newSecret();
    const next = newSecret();
    const firstHalf = guilds.slice(0, 5);
    const secondHalf = guilds.slice(5);
    await seed(oldSecret, firstHalf);
    await rotateKeys({ databaseUrl, oldSecret, newSecret: next });
    // Records the bot wrote under the old secret after the interrupted run.
    await seed(oldSecret, secondHalf);
    const result = await rotateKeys({ databaseUrl, oldSecret, newSecret: next });
    expect(result).toEqual({ rotated: secondHalf.length, alreadyCurrent: firstHalf.length, failed: [] });
    expect(await readAll(next)).toEqual(guilds.map((guild) => `fk_live_CANARY_${guild}`));
  });

  it('lists records it cannot rotate by guild id, and rotates the rest', async () => {
    const oldSecret = newSecret();
    const next = newSecret();
    const stranger = newSecret();
    await seed(oldSecret, guilds.slice(0, 3));
    await seed(stranger, [guilds[3]!]);
    const db = await KeyDatabase.open({ databaseUrl, logger: silentLogger() });
    opened.push(db);
    const movedRecord = (await db.readEntry(guilds[0]!))!.record;
    await db.keyv.set(guilds[4]!, movedRecord);
    const tampered = { ...(movedRecord as object), kid: secretKid(next) };
    await db.keyv.set(guilds[5]!, tampered);
    await db.close();

    const { logger, lines } = capturingLogger();
    const result = await rotateKeys({ databaseUrl, oldSecret, newSecret: next, logger });
    expect(result.rotated).toBe(3);
    expect(result.alreadyCurrent).toBe(0);
    expect(result.failed.sort()).toEqual([guilds[3], guilds[4], guilds[5]].sort());
    const log = lines.join('');
    expect(log).toContain('wrong_secret');
    expect(log).toContain('tampered_or_moved');
    expect(log).not.toContain('CANARY');
    expect(log).not.toContain(oldSecret.toString('base64'));
    expect(log).not.toContain(next.toString('base64'));
  });

  it('only touches its namespace', async () => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(oldSecret, guilds.slice(0, 2));
    await seed(oldSecret, guilds.slice(0, 3), 'other-keys');
    const result = await rotateKeys({ databaseUrl, oldSecret, newSecret: next });
    expect(result).toEqual({ rotated: 2, alreadyCurrent: 0, failed: [] });
    const other = await KeyStore.open({ databaseUrl, secret: oldSecret, namespace: 'other-keys' });
    opened.push(other);
    expect((await other.get(guilds[2]!))?.apiKey).toBe(`fk_live_CANARY_${guilds[2]}`);
  });

  it('lets a bot opened with previousSecrets keep working during the rotation window', async () => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(oldSecret, [GUILD_A]);
    const bot = await KeyStore.open({ databaseUrl, secret: next, previousSecrets: [oldSecret], cacheSize: 0 });
    opened.push(bot);
    expect((await bot.get(GUILD_A))?.apiKey).toBe(`fk_live_CANARY_${GUILD_A}`);
    await bot.set(guilds[0]!, sampleKey(canaryKey('new')));
    expect(await rotateKeys({ databaseUrl, oldSecret, newSecret: next })).toEqual({
      rotated: 1,
      alreadyCurrent: 1,
      failed: [],
    });
    expect((await bot.get(GUILD_A))?.apiKey).toBe(`fk_live_CANARY_${GUILD_A}`);
    expect(await bot.audit()).toMatchObject({ total: 2, current: 2, previous: 0 });
  });

  it('does not overwrite a record the bot changed between its read and its write', async () => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(oldSecret, [GUILD_A]);
    const db = await KeyDatabase.open({ databaseUrl, logger: silentLogger() });
    opened.push(db);
    const stale = (await db.readEntry(GUILD_A))!;
    const bot = await KeyStore.open({ databaseUrl, secret: oldSecret });
    opened.push(bot);
    await bot.set(GUILD_A, sampleKey('fk_live_written_meanwhile'));
    // The swap rotation would do with the stale read must be refused.
    expect(await db.replaceIf(GUILD_A, stale.raw, stale.record)).toBe(false);
    expect((await rotateKeys({ databaseUrl, oldSecret, newSecret: next })).rotated).toBe(1);
    expect((await readAll(next, [GUILD_A]))[0]).toBe('fk_live_written_meanwhile');
  });

  it('refuses a missing database file and identical secrets', async () => {
    const secret = newSecret();
    await expect(
      rotateKeys({ databaseUrl: path.join(dir, 'nope.sqlite'), oldSecret: secret, newSecret: newSecret() }),
    ).rejects.toThrow(/does not exist/);
    expect((await readAllFiles(dir)).map((file) => file.name)).not.toContain('nope.sqlite');
    await expect(rotateKeys({ databaseUrl, oldSecret: secret, newSecret: Buffer.from(secret) })).rejects.toThrow(
      /same as the old one/,
    );
  });
});
