/** Opening settings stores in tests, closed after each test; and the changes the tests apply. */
import { afterEach } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { silentLogger } from '../../src/logger.js';
import type { GuildSettings } from '../../src/settings/schema.js';
import { GuildSettingsStore, type GuildSettingsStoreOptions } from '../../src/settings/store.js';

export const GUILD = '111111111111111111';
export const OTHER_GUILD = '222222222222222222';

/** A distinct role id per index. */
export const role = (index: number): string => String(500000000000000000n + BigInt(index));

/** Adds `roleId` to the manager roles (what /feedbot managers add stores). */
export const addRole =
  (roleId: string) =>
  (current: GuildSettings): GuildSettings => ({ ...current, managerRoleIds: [...current.managerRoleIds, roleId] });

const opened: GuildSettingsStore[] = [];

/** Registers the after-each close for the calling test file; returns the opener. */
export function settingsStores(): (databaseUrl: string, opts?: Partial<GuildSettingsStoreOptions> & { logger?: Logger }) => Promise<GuildSettingsStore> {
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((store) => store.close()));
  });
  return async (databaseUrl, opts = {}) => {
    const store = await GuildSettingsStore.open({ databaseUrl, logger: silentLogger(), ...opts });
    opened.push(store);
    return store;
  };
}

/** Polls `read` until `check` holds, failing after `withinMs`. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, withinMs = 3_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not seen after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
