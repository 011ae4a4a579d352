import path from 'node:path';
import { describe, expect } from 'vitest';
import { secretKid } from '../../src/keys/crypto.js';
import { KeyStore, KeyStoreError, rotateKeys } from '../../src/keys/store.js';
import { GUILD_A, canaryKey, capturingLogger, keysTest, newSecret, readAllFiles, sampleKey, type TempKeyDatabase } from './helpers.js';

const guilds = Array.from({ length: 12 }, (_, index) => String(400000000000000000n + BigInt(index)));

async function seed(db: TempKeyDatabase, secret: Buffer, ids = guilds, namespace?: string): Promise<void> {
  const store = await KeyStore.open({ databaseUrl: db.databaseUrl, secret, ...(namespace ? { namespace } : {}) });
  await Promise.all(ids.map((guild) => store.set(guild, sampleKey(`fk_live_CANARY_${guild}`))));
  await store.close();
}

async function readAll(db: TempKeyDatabase, secret: Buffer, ids = guilds): Promise<Array<string | KeyStoreError>> {
  const store = await KeyStore.open({ databaseUrl: db.databaseUrl, secret, cacheSize: 0 });
  db.track(store);
  const results = await Promise.all(
    ids.map((guild) => store.get(guild).then((key) => key?.apiKey ?? 'missing', (error: KeyStoreError) => error)),
  );
  await store.close();
  return results;
}

async function kidsOnDisk(db: TempKeyDatabase): Promise<string[]> {
  const raw = await db.openRaw();
  const entries = await raw.listEntries();
  await raw.close();
  return entries.map((entry) => (entry.record as { kid: string }).kid);
}

describe('rotateKeys', () => {
  keysTest('re-encrypts every record: the new secret reads them, the old one no longer does', async ({ db }) => {
    const oldSecret = newSecret();
    const newSecret_ = newSecret();
    await seed(db, oldSecret);
    const result = await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: newSecret_ });
    expect(result).toEqual({ rotated: guilds.length, alreadyCurrent: 0, failed: [] });

    expect(await readAll(db, newSecret_)).toEqual(guilds.map((guild) => `fk_live_CANARY_${guild}`));
    const withOld = await readAll(db, oldSecret);
    expect(withOld.every((value) => value instanceof KeyStoreError && value.reason === 'wrong_secret')).toBe(true);
    expect(new Set(await kidsOnDisk(db))).toEqual(new Set([secretKid(newSecret_)]));
    for (const file of await readAllFiles(db.dir)) expect(file.bytes.includes('CANARY'), file.name).toBe(false);
  });

  keysTest('is idempotent: a re-run counts everything as already current and changes nothing', async ({ db }) => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(db, oldSecret);
    await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next });
    const before = (await readAllFiles(db.dir)).find((file) => file.name === 'feedbot.sqlite')!.bytes;
    const again = await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next });
    expect(again).toEqual({ rotated: 0, alreadyCurrent: guilds.length, failed: [] });
    const after = (await readAllFiles(db.dir)).find((file) => file.name === 'feedbot.sqlite')!.bytes;
    expect(after.equals(before)).toBe(true);
  });

  keysTest('finishes a rotation that stopped half-way (mixed old and new records)', async ({ db }) => {
    const oldSecret = newSecret();
    const next = newSecret();
    const firstHalf = guilds.slice(0, 5);
    const secondHalf = guilds.slice(5);
    await seed(db, oldSecret, firstHalf);
    await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next });
    // Records the bot wrote under the old secret after the interrupted run.
    await seed(db, oldSecret, secondHalf);
    const result = await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next });
    expect(result).toEqual({ rotated: secondHalf.length, alreadyCurrent: firstHalf.length, failed: [] });
    expect(await readAll(db, next)).toEqual(guilds.map((guild) => `fk_live_CANARY_${guild}`));
  });

  keysTest('lists records it cannot rotate by guild id, and rotates the rest', async ({ db }) => {
    const oldSecret = newSecret();
    const next = newSecret();
    const stranger = newSecret();
    await seed(db, oldSecret, guilds.slice(0, 3));
    await seed(db, stranger, [guilds[3]!]);
    const raw = await db.openRaw();
    const movedRecord = (await raw.readEntry(guilds[0]!))!.record;
    await raw.keyv.set(guilds[4]!, movedRecord);
    const tampered = { ...(movedRecord as object), kid: secretKid(next) };
    await raw.keyv.set(guilds[5]!, tampered);
    await raw.close();

    const { logger, lines } = capturingLogger();
    const result = await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next, logger });
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

  keysTest('only touches its namespace', async ({ db }) => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(db, oldSecret, guilds.slice(0, 2));
    await seed(db, oldSecret, guilds.slice(0, 3), 'other-keys');
    const result = await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next });
    expect(result).toEqual({ rotated: 2, alreadyCurrent: 0, failed: [] });
    const other = await KeyStore.open({ databaseUrl: db.databaseUrl, secret: oldSecret, namespace: 'other-keys' });
    db.track(other);
    expect((await other.get(guilds[2]!))?.apiKey).toBe(`fk_live_CANARY_${guilds[2]}`);
  });

  keysTest('lets a bot opened with previousSecrets keep working during the rotation window', async ({ db }) => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(db, oldSecret, [GUILD_A]);
    const bot = await KeyStore.open({ databaseUrl: db.databaseUrl, secret: next, previousSecrets: [oldSecret], cacheSize: 0 });
    db.track(bot);
    expect((await bot.get(GUILD_A))?.apiKey).toBe(`fk_live_CANARY_${GUILD_A}`);
    await bot.set(guilds[0]!, sampleKey(canaryKey('new')));
    expect(await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next })).toEqual({
      rotated: 1,
      alreadyCurrent: 1,
      failed: [],
    });
    expect((await bot.get(GUILD_A))?.apiKey).toBe(`fk_live_CANARY_${GUILD_A}`);
    expect(await bot.audit()).toMatchObject({ total: 2, current: 2, previous: 0 });
  });

  keysTest('does not overwrite a record the bot changed between its read and its write', async ({ db }) => {
    const oldSecret = newSecret();
    const next = newSecret();
    await seed(db, oldSecret, [GUILD_A]);
    const raw = await db.openRaw();
    const stale = (await raw.readEntry(GUILD_A))!;
    const bot = await KeyStore.open({ databaseUrl: db.databaseUrl, secret: oldSecret });
    db.track(bot);
    await bot.set(GUILD_A, sampleKey('fk_live_written_meanwhile'));
    // The swap rotation would do with the stale read must be refused.
    expect(await raw.replaceIf(GUILD_A, stale.raw, stale.record)).toBe(false);
    expect((await rotateKeys({ databaseUrl: db.databaseUrl, oldSecret, newSecret: next })).rotated).toBe(1);
    expect((await readAll(db, next, [GUILD_A]))[0]).toBe('fk_live_written_meanwhile');
  });

  keysTest('refuses a missing database file and identical secrets', async ({ db }) => {
    const secret = newSecret();
    await expect(
      rotateKeys({ databaseUrl: path.join(db.dir, 'nope.sqlite'), oldSecret: secret, newSecret: newSecret() }),
    ).rejects.toThrow(/does not exist/);
    expect((await readAllFiles(db.dir)).map((file) => file.name)).not.toContain('nope.sqlite');
    await expect(rotateKeys({ databaseUrl: db.databaseUrl, oldSecret: secret, newSecret: Buffer.from(secret) })).rejects.toThrow(
      /same as the old one/,
    );
  });
});
