/**
 * The settings store under concurrent updates, in one process and across processes sharing a
 * backend: no update is lost (serialized here, compare-and-swap across connections), and a change
 * made elsewhere stops being served from the cache.
 */
import { expect, test, vi } from 'vitest';
import type { GuildSettingsStore } from '../../src/settings/store.js';
import { BACKENDS, SHARED_BACKENDS, describeBackends } from '../keys/backends.js';
import { cleanEnv, runScript } from '../keys/cli.js';
import { errorOf } from '../keys/helpers.js';
import { GUILD, addRole, eventually, role, settingsStores } from './helpers.js';

const openStore = settingsStores();

const roles = async (store: GuildSettingsStore) => (await store.get(GUILD)).managerRoleIds;

describeBackends(BACKENDS, 'guild settings updates', (ctx) => {
  test('never loses one of many concurrent updates in one process, and applies them in call order', async () => {
    const store = await openStore(await ctx.newUrl());
    const added = Array.from({ length: 20 }, (_, index) => role(index));
    const reads: Array<Promise<unknown>> = [];
    const updates = added.map((id) => {
      reads.push(store.get(GUILD));
      return store.update(GUILD, addRole(id));
    });
    await Promise.all([...updates, ...reads]);
    expect(await roles(store)).toEqual(added);
  });

  test('never loses an update when two connections update the same guild at once (compare-and-swap)', async () => {
    const url = await ctx.newUrl();
    const one = await openStore(url);
    const two = await openStore(url);
    // A record exists: the very first one has nothing to compare with (documented in the store).
    await one.update(GUILD, (current) => ({ ...current, staleAfterDays: 3 }));
    const updates: Array<Promise<unknown>> = [];
    for (let index = 0; index < 10; index += 1) {
      updates.push(one.update(GUILD, addRole(role(index))), two.update(GUILD, addRole(role(100 + index))));
    }
    await Promise.all(updates);

    const fresh = await openStore(url, { cacheSize: 0 });
    const stored = await fresh.get(GUILD);
    expect(stored.staleAfterDays).toBe(3);
    expect([...stored.managerRoleIds].sort()).toEqual([...Array.from({ length: 10 }, (_, i) => [role(i), role(100 + i)]).flat()].sort());
  });

  test('re-runs the change on a fresh read when another connection wrote between its read and its write', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url);
    const other = await openStore(url);
    await store.update(GUILD, addRole(role(1)));
    // Let the other connection write right after this store read the record.
    const records = (store as unknown as { records: { read: (id: string) => Promise<unknown> } }).records;
    const read = records.read.bind(records);
    let interfered = false;
    vi.spyOn(records, 'read').mockImplementation(async (id) => {
      const snapshot = await read(id);
      if (!interfered) {
        interfered = true;
        await other.update(GUILD, addRole(role(2)));
      }
      return snapshot;
    });
    const change = vi.fn(addRole(role(3)));
    await store.update(GUILD, change);
    expect(change).toHaveBeenCalledTimes(2);
    expect(await roles(await openStore(url, { cacheSize: 0 }))).toEqual([role(1), role(2), role(3)]);
  });

  test('gives up with a storage error when the record keeps changing under it', async () => {
    const url = await ctx.newUrl();
    const store = await openStore(url);
    await store.update(GUILD, addRole(role(1)));
    const backend = (store as unknown as { db: { replaceIf: () => Promise<boolean> } }).db;
    const swaps = vi.spyOn(backend, 'replaceIf').mockResolvedValue(false);
    const error = await errorOf(store.update(GUILD, addRole(role(2))));
    expect(error.code).toBe('storage');
    expect(swaps).toHaveBeenCalledTimes(8);
    expect(await roles(store)).toEqual([role(1)]);
  });
});

describeBackends(SHARED_BACKENDS, 'guild settings across processes', (ctx) => {
  // The stores keep the default 30 s cache TTL: a pass within the polling window can only come
  // from the change announcement.
  test('a change through another connection is not served from the cache', async () => {
    const url = await ctx.newUrl();
    const reader = await openStore(url);
    const writer = await openStore(url);
    await writer.update(GUILD, addRole(role(1)));
    expect(await roles(reader)).toEqual([role(1)]);

    await writer.update(GUILD, (current) => ({ ...current, managerRoleIds: [] }));
    await eventually(() => roles(reader), (ids) => ids.length === 0);
  });

  test('a change by another OS process is not served from the cache', async () => {
    const url = await ctx.newUrl();
    const reader = await openStore(url);
    expect(await roles(reader)).toEqual([]);

    const child = await runScript('test/settings/fixtures/add-manager.ts', cleanEnv({ DATABASE_URL: url, GUILD, ROLE: role(7) }));
    expect(child.stdout, child.stderr).toContain('done');
    await eventually(() => roles(reader), (ids) => ids.includes(role(7)));
  });
});
