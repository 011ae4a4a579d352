/**
 * Over the gateway, a role deleted in Discord stops being a feed-manager role: it could no longer
 * be picked in `/feedbot managers remove`.
 */
import { expect } from 'vitest';
import { GUILD_ID } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from '../bot/known-guilds.js';
import { watchDeletedRoles } from '../../src/settings/role-watch.js';
import { silentLogger } from '../../src/logger.js';

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
  const watch = watchDeletedRoles(bot.discord.client, bot.settings, silentLogger());

  actions(bot).GuildRoleDelete.handle({ guild_id: GUILD_ID, role_id: OTHER });
  await watch.settled();
  expect((await bot.settings.get(GUILD_ID)).managerRoleIds).toEqual([MANAGERS]);

  actions(bot).GuildRoleDelete.handle({ guild_id: GUILD_ID, role_id: MANAGERS });
  await watch.settled();
  expect((await bot.settings.get(GUILD_ID)).managerRoleIds).toEqual([]);
});
