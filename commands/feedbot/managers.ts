/**
 * /feedbot managers add | remove | list — the roles whose members may create and delete feeds
 * without Manage Server (the ManageFeeds precondition reads them at run time). Changing and
 * listing them stays with Manage Server, like the API key and the rest of /feedbot.
 */
import { roleMention, type APIEmbed, type ChatInputCommandInteraction, type MessageMentionOptions, type SlashCommandSubcommandBuilder } from 'discord.js';
import type { SlashDeclaration, SubcommandGroup } from '../../src/interactions/command.js';
import { MANAGES_SETTINGS } from '../../src/interactions/preconditions.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { UserError } from '../../src/interactions/errors.js';
import { requireGuildRoles } from '../../src/interactions/chosen.js';
import { localize } from '../../src/i18n/localize.js';
import type { MessageKey } from '../../src/i18n/index.js';
import { managerAddedEmbed, managerRemovedEmbed, managersListEmbed } from './render-managers.js';
import { MAX_MANAGER_ROLES } from '../../src/settings/schema.js';

/** The answers show role mentions: they must not ping the role's members. */
const NO_PINGS: MessageMentionOptions = { parse: [] };

function withRoleOption(s: SlashCommandSubcommandBuilder, description: MessageKey): SlashCommandSubcommandBuilder {
  return s.addRoleOption((o) => localize(o.setName('rol'), { name: 'opt.rol.name', description }).setRequired(true));
}

/**
 * Refuses a role that cannot sensibly stand for "trusted to manage feeds". Shared by `add` and
 * /feedbot settings' role select.
 */
function refuseUnfitRole(role: { id: string; managed: boolean }, guildId: string): void {
  // @everyone's id is the guild's: every member has it.
  if (role.id === guildId) throw new UserError('managers.error.everyone');
  // A bot's or an integration's role is given by that integration, not by the server's admins.
  if (role.managed) throw new UserError('managers.error.managed', { role: roleMention(role.id) });
}

/** The chosen role, refused when it cannot sensibly stand for "trusted to manage feeds". */
function chosenRole(interaction: ChatInputCommandInteraction, guildId: string): string {
  const role = interaction.options.getRole('rol', true);
  refuseUnfitRole(role, guildId);
  return role.id;
}

/**
 * Makes `roles` the whole list of feed-manager roles (the settings panel's role select), each
 * refused as `add` refuses it, and no more than the limit.
 */
export async function replaceManagerRoles(ctx: HandlerContext, roles: readonly { id: string; managed: boolean }[]): Promise<readonly string[]> {
  const guildId = ctx.guildId();
  for (const role of roles) refuseUnfitRole(role, guildId);
  if (roles.length > MAX_MANAGER_ROLES) throw new UserError('managers.error.tooMany', { max: MAX_MANAGER_ROLES });
  const roleIds = [...new Set(roles.map((r) => r.id))];
  await requireGuildRoles(ctx, ctx.interaction.client, roleIds);
  await ctx.services.settings.update(guildId, (current) => ({ ...current, managerRoleIds: roleIds }));
  return roleIds;
}

async function answer(ctx: HandlerContext, embed: APIEmbed): Promise<void> {
  await ctx.respond.send({ embeds: [embed], allowedMentions: NO_PINGS });
}

const add: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(interaction, ctx) {
    const guildId = ctx.guildId();
    const roleId = chosenRole(interaction, guildId);
    await requireGuildRoles(ctx, interaction.client, [roleId]);
    // Checked inside the update, on the stored list: two admins adding at once cannot pass the limit.
    await ctx.services.settings.update(guildId, (current) => {
      if (current.managerRoleIds.includes(roleId)) throw new UserError('managers.error.duplicate', { role: roleMention(roleId) });
      if (current.managerRoleIds.length >= MAX_MANAGER_ROLES) throw new UserError('managers.error.tooMany', { max: MAX_MANAGER_ROLES });
      return { ...current, managerRoleIds: [...current.managerRoleIds, roleId] };
    });
    await answer(ctx, managerAddedEmbed(ctx.t, roleId));
  },
};

const remove: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(interaction, ctx) {
    const guildId = ctx.guildId();
    const roleId = interaction.options.getRole('rol', true).id;
    await ctx.services.settings.update(guildId, (current) => {
      if (!current.managerRoleIds.includes(roleId)) throw new UserError('managers.error.notManager', { role: roleMention(roleId) });
      return { ...current, managerRoleIds: current.managerRoleIds.filter((id) => id !== roleId) };
    });
    await answer(ctx, managerRemovedEmbed(ctx.t, roleId));
  },
};

const list: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(_interaction, ctx) {
    const { managerRoleIds } = await ctx.services.settings.get(ctx.guildId());
    await answer(ctx, managersListEmbed(ctx.t, managerRoleIds));
  },
};

export const group: SubcommandGroup = {
  name: 'managers',
  build: (g) =>
    localize(g, { name: 'cmd.feedbot.managers.name', description: 'cmd.feedbot.managers.description' })
      .addSubcommand((s) =>
        withRoleOption(localize(s.setName('add'), { name: 'cmd.feedbot.managers.add.name', description: 'cmd.feedbot.managers.add.description' }), 'opt.rol.add.description'),
      )
      .addSubcommand((s) =>
        withRoleOption(
          localize(s.setName('remove'), { name: 'cmd.feedbot.managers.remove.name', description: 'cmd.feedbot.managers.remove.description' }),
          'opt.rol.remove.description',
        ),
      )
      .addSubcommand((s) => localize(s.setName('list'), { name: 'cmd.feedbot.managers.list.name', description: 'cmd.feedbot.managers.list.description' })),
  subcommands: { add, remove, list },
};
