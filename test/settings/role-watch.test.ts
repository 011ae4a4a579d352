/**
 * Over the gateway, a role deleted in Discord stops being a feed-manager role: it could no longer
 * be picked in `/feedbot managers remove`.
 */
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import { GUILD_ID } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from '../bot/known-guilds.js';
import { roleDeleted } from '../../src/settings/role-watch.js';
import { listenTo } from '../../src/bot/gateway-listeners.js';
import { silentLogger } from '../../src/logger.js';
import { SqliteLease } from '../../src/leases/lease-sqlite.js';

const MANAGERS = '1500000000000000001';
const OTHER = '1500000000000000002';

type Action = { handle(d: unknown): void };
const actions = (h: BotHarness) => (h.discord.client as unknown as { actions: Record<'GuildRoleCreate' | 'GuildRoleDelete', Action> }).actions;

function role(id: string) {
  return { id, name: `role ${id.slice(-1)}`, color: 0, hoist: false, position: 1, permissions: '0', managed: false, mentionable: false, flags: 0 };
}

botTest('a deleted manager role leaves the list; other roles change nothing', async ({ bot }) => {
  knowGuild(bot.discord.client, GUILD_ID, []);
  for (const id of [MANAGERS, OTHER]) actions(bot).GuildRoleCreate.handle({ guild_id: GUILD_ID, role: role(id) });
  await bot.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGERS] }));
  const watch = listenTo(bot.discord.client, [roleDeleted], { settings: bot.settings, logger: silentLogger() });

  actions(bot).GuildRoleDelete.handle({ guild_id: GUILD_ID, role_id: OTHER });
  await watch.settled();
  expect((await bot.settings.get(GUILD_ID)).managerRoleIds).toEqual([MANAGERS]);

  actions(bot).GuildRoleDelete.handle({ guild_id: GUILD_ID, role_id: MANAGERS });
  await watch.settled();
  expect((await bot.settings.get(GUILD_ID)).managerRoleIds).toEqual([]);
});

botTest('two processes on the shard (each watching, one shared lease): the role is removed by one of them', async ({ bot }) => {
  knowGuild(bot.discord.client, GUILD_ID, []);
  actions(bot).GuildRoleCreate.handle({ guild_id: GUILD_ID, role: role(MANAGERS) });
  await bot.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGERS, OTHER] }));
  const [a, b] = [await SqliteLease.open(join(bot.dir, 'keys.sqlite')), await SqliteLease.open(join(bot.dir, 'keys.sqlite'))];
  const writes = vi.spyOn(bot.settings, 'update');
  try {
    // Both watchers hear the one event, as two sessions of one shard do.
    const watches = [listenTo(bot.discord.client, [roleDeleted], { settings: bot.settings, logger: silentLogger(), lease: a }), listenTo(bot.discord.client, [roleDeleted], { settings: bot.settings, logger: silentLogger(), lease: b })];
    actions(bot).GuildRoleDelete.handle({ guild_id: GUILD_ID, role_id: MANAGERS });
    for (const w of watches) await w.settled();
    expect(writes).toHaveBeenCalledTimes(1);
    expect((await bot.settings.get(GUILD_ID)).managerRoleIds).toEqual([OTHER]);
  } finally {
    await a.close();
    await b.close();
  }
});
