/**
 * The per-guild settings store on each backend: defaults, round trips, invalid records, guild id
 * validation, and its cache. Concurrency and other processes are in concurrency.test.ts.
 */
import { expect, test, vi } from 'vitest';
import { MAX_MANAGER_ROLES, defaultSettings } from '../../src/settings/schema.js';
import { SETTINGS_NAMESPACE } from '../../src/settings/store.js';
import { BACKENDS, describeBackends } from '../keys/backends.js';
import { capturingLogger, errorOf } from '../keys/helpers.js';
import { GUILD, OTHER_GUILD, addRole, role, settingsStores } from './helpers.js';

const openStore = settingsStores();

describeBackends(BACKENDS, 'guild settings store', (ctx) => {
  test('reads the defaults when nothing is stored, and stores nothing for them', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url);
    expect(await store.get(GUILD)).toEqual(defaultSettings());
    expect(await store.update(GUILD, (current) => current)).toEqual(defaultSettings());
    const raw = await ctx.openRaw(url, SETTINGS_NAMESPACE);
    expect(await raw.readEntry(GUILD)).toBeUndefined();
  });

  test('round-trips every field, per guild, through a fresh store', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url);
    const stored = await store.update(GUILD, (current) => ({
      ...current,
      auditChannelId: '1300000000000000001',
      auditFailure: { at: 1_700_000_000_000, reason: 'missing_access', channelId: '1300000000000000001', reported: false },
      managerRoleIds: [role(1), role(2)],
      staleAfterDays: 14,
      keyStoppedNotified: 'a1b2c3d4',
      reportedDeletedChannels: ['1300000000000000002'],
    }));
    expect(await store.get(GUILD)).toEqual(stored);
    expect(await store.get(OTHER_GUILD)).toEqual(defaultSettings());

    const fresh = await openStore(url, { cacheSize: 0 });
    expect(await fresh.get(GUILD)).toEqual(stored);
    expect(stored.managerRoleIds).toEqual([role(1), role(2)]);
  });

  test('reads an invalid record as the defaults, logs it once, and replaces it on the next update', async () => {
    const url = await ctx.newUrl();
    const raw = await ctx.openRaw(url, SETTINGS_NAMESPACE);
    await raw.keyv.set(GUILD, { v: 1, managerRoleIds: ['not a snowflake'], reportedDeletedChannels: [] });
    const { logger, lines } = capturingLogger();
    // No cache: every get() reads the record again.
    const store = await openStore(url, { logger, cacheSize: 0 });

    expect(await store.get(GUILD)).toEqual(defaultSettings());
    expect(await store.get(GUILD)).toEqual(defaultSettings());
    const warnings = lines.filter((line) => line.includes('stored guild settings are not valid'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ guildId: GUILD, problem: expect.stringContaining('managerRoleIds.0') as unknown });
    // The stored value is not quoted in the log.
    expect(warnings[0]).not.toContain('not a snowflake');

    await store.update(GUILD, addRole(role(1)));
    expect((await store.get(GUILD)).managerRoleIds).toEqual([role(1)]);
    expect((await raw.readEntry(GUILD))?.record).toMatchObject({ v: 1, managerRoleIds: [role(1)] });
  });

  test('reads an envelope that is not JSON as the defaults, logged once per distinct value', async () => {
    const url = await ctx.newUrl();
    const raw = await ctx.openRaw(url, SETTINGS_NAMESPACE);
    await raw.writeRaw(GUILD, '{not json');
    const { logger, lines } = capturingLogger();
    const store = await openStore(url, { logger, cacheSize: 0 });
    const invalid = () => lines.filter((line) => line.includes('stored guild settings are not valid'));

    expect(await store.get(GUILD)).toEqual(defaultSettings());
    expect(await store.get(GUILD)).toEqual(defaultSettings());
    expect(invalid()).toHaveLength(1);
    expect(invalid()[0]).toContain('the stored envelope is not readable');

    await raw.keyv.set(GUILD, { v: 99 });
    expect(await store.get(GUILD)).toEqual(defaultSettings());
    expect(invalid()).toHaveLength(2);
  });

  test('refuses a guild id that is not a snowflake, before touching the backend', async () => {
    const store = await openStore(await ctx.newUrl());
    for (const id of ['', 'abc', '1 OR 1=1', '12345678901234567890123456789012345', '../1']) {
      expect((await errorOf(store.get(id))).code).toBe('invalid_input');
      expect((await errorOf(store.update(id, (current) => current))).code).toBe('invalid_input');
    }
  });

  test('refuses settings the schema does not allow, and an update whose change throws stores nothing', async () => {
    const store = await openStore(await ctx.newUrl());
    await store.update(GUILD, addRole(role(1)));
    const tooMany = Array.from({ length: MAX_MANAGER_ROLES + 1 }, (_, index) => role(index));
    const refused = await errorOf(store.update(GUILD, (current) => ({ ...current, managerRoleIds: tooMany })));
    expect(refused.code).toBe('invalid_input');
    expect(refused.message).toContain('managerRoleIds');

    await expect(
      store.update(GUILD, () => {
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // Later updates of the guild still run.
    await store.update(GUILD, addRole(role(2)));
    expect((await store.get(GUILD)).managerRoleIds).toEqual([role(1), role(2)]);
  });

  test('serves repeated reads from its cache, and hands out copies', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url);
    await store.update(GUILD, addRole(role(1)));
    const backend = (store as unknown as { db: { readEntry: (id: string) => Promise<unknown> } }).db;
    const reads = vi.spyOn(backend, 'readEntry');

    const first = await store.get(GUILD);
    first.managerRoleIds.push(role(9));
    const second = await store.get(GUILD);
    expect(second.managerRoleIds).toEqual([role(1)]);
    expect(reads).not.toHaveBeenCalled();
  });

  test('trusts a cached entry for cacheTtlMs at most (the bound when a change is not announced)', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url, { cacheTtlMs: 300 });
    expect((await store.get(GUILD)).managerRoleIds).toEqual([]);
    // Behind the store's back: no announcement, as when another process writes the same SQLite file.
    const raw = await ctx.openRaw(url, SETTINGS_NAMESPACE);
    await raw.keyv.set(GUILD, { ...defaultSettings(), managerRoleIds: [role(1)] });
    expect((await store.get(GUILD)).managerRoleIds).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await store.get(GUILD)).managerRoleIds).toEqual([role(1)]);
  });

  test('is refused after close(), which waits for the updates in flight', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url);
    const pending = store.update(GUILD, addRole(role(1)));
    await store.close();
    await pending;
    expect((await errorOf(store.get(GUILD))).code).toBe('closed');
    expect(await (await openStore(url, { cacheSize: 0 })).get(GUILD)).toMatchObject({ managerRoleIds: [role(1)] });
  });
});
