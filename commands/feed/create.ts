/**
 * /feed create <cuenta> <canal> <tipos> — forward a social account into a channel (Manage
 * Server or a feed-manager role).
 */
import { ChannelType, type SlashCommandSubcommandBuilder } from 'discord.js';
import type { SlashDeclaration } from '../../src/bot/command.js';
import { KIND_COMBINATIONS, parseAccount, parseKinds } from '../../src/bot/options.js';
import { localize, localizedChoice } from '../../src/i18n/localize.js';
import { createdFeedEmbed } from '../../src/render/feeds.js';
import { kindsLabel } from '../../src/render/labels.js';

const CHANNEL_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement] as const;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('create'), { name: 'cmd.feed.create.name', description: 'cmd.feed.create.description' })
    .addStringOption((o) =>
      localize(o.setName('cuenta'), { name: 'opt.cuenta.name', description: 'opt.cuenta.description' }).setRequired(true).setMinLength(1).setMaxLength(200),
    )
    .addChannelOption((o) =>
      localize(o.setName('canal'), { name: 'opt.canal.name', description: 'opt.canal.create.description' })
        .setRequired(true)
        .addChannelTypes(...CHANNEL_TYPES),
    )
    .addStringOption((o) =>
      localize(o.setName('tipos'), { name: 'opt.tipos.name', description: 'opt.tipos.description' })
        .setRequired(true)
        .addChoices(...KIND_COMBINATIONS.map((kinds) => localizedChoice((t) => kindsLabel(t, kinds), kinds.join('+')))),
    );
}

/** Public: the new feed is news for the channel. */
export const subcommand: SlashDeclaration = {
  guildOnly: true,
  requires: { permission: 'ManageFeeds', action: 'createFeed' },
  ephemeral: false,
  async run(interaction, ctx) {
    const cuenta = parseAccount(interaction.options.getString('cuenta', true));
    const channel = interaction.options.getChannel('canal', true, [...CHANNEL_TYPES]);
    const tipos = parseKinds(interaction.options.getString('tipos', true));
    const created = await ctx.call((api, auth) => api.createFeed(auth, { cuenta, canalId: channel.id, tipos, filtros: [] }));
    // Recorded before answering: the feed exists whether or not Discord takes the answer.
    ctx.services.audit.record(
      ctx.guildId(),
      { kind: 'feedCreated', actor: ctx.actor(), feed: { id: created.id, cuenta: created.cuenta, canalId: created.canalId, tipos } },
      interaction.locale,
    );
    await ctx.respond.send({ embeds: [createdFeedEmbed(ctx.t, created, tipos)] });
  },
};
