/**
 * /feedbot <group> <subcommand> | settings — the server's feedbot settings (Manage Server): the audit
 * channel, the feed-manager roles and the feed-health threshold; `settings` shows them all in one
 * panel (settings.ts). One file per subcommand group;
 * this one assembles the definition and routes `group subcommand` to its declaration.
 */
import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { CommandModule, SubcommandGroup } from '../../src/interactions/command.js';
import { localize } from '../../src/i18n/localize.js';
import * as auditChannel from './audit-channel.js';
import * as managers from './managers.js';
import * as health from '../../src/health/health-command.js';
import * as settings from './settings.js';
import * as digest from '../../src/health/sweep/digest-command.js';
import * as forget from '../../src/guild-data/forget-command.js';

const GROUPS: readonly SubcommandGroup[] = [auditChannel.group, managers.group, health.group, digest.group];

function definition() {
  const builder = localize(new SlashCommandBuilder().setName('feedbot'), { description: 'cmd.feedbot.description' })
    .setContexts(InteractionContextType.Guild)
    // Shown to Manage Server by default; every subcommand also checks at run time.
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild);
  for (const group of GROUPS) builder.addSubcommandGroup((g) => group.build(g.setName(group.name)));
  // The panel for all of them at once (Manage Server).
  builder.addSubcommand((s) => localize(s.setName('settings'), { name: 'cmd.feedbot.settings.name', description: 'cmd.feedbot.settings.description' }));
  // Deletes this server's data now (Manage Server, after a confirmation).
  builder.addSubcommand((s) => forget.build(s));
  return builder;
}

export const data = definition();

export const feedbotCommand: CommandModule = {
  data,
  // The router looks a grouped subcommand up as `group subcommand`.
  subcommands: {
    ...Object.fromEntries(GROUPS.flatMap((group) => Object.entries(group.subcommands).map(([sub, d]) => [`${group.name} ${sub}`, d]))),
    settings: settings.subcommand,
    forget: forget.subcommand,
  },
  ...settings.settingsComponents,
  buttons: [...settings.settingsComponents.buttons, forget.confirmButton],
  dispose: forget.dispose,
};
