/**
 * /stats — the server's forwarding statistics in one embed.
 */
import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { CommandModule } from '../src/interactions/command.js';
import { localize } from '../src/i18n/localize.js';
import { statsEmbed } from './stats/render.js';

export const statsCommand: CommandModule = {
  data: localize(new SlashCommandBuilder().setName('stats'), { name: 'cmd.stats.name', description: 'cmd.stats.description' }).setContexts(
    InteractionContextType.Guild,
  ),
  command: {
    guildOnly: true,
    // Public: the numbers are the whole server's.
    ephemeral: false,
    async run(interaction, ctx) {
      const stats = await ctx.call((api, auth) => api.getStats(auth));
      // The name is known when the gateway cached the guild (not over HTTP interactions): no request for it.
      const guild = interaction.guild ? { id: interaction.guild.id, name: interaction.guild.name } : undefined;
      await ctx.respond.send({ embeds: [statsEmbed(ctx.t, stats, guild)] });
    },
  },
};
