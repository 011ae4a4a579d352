/**
 * /stats — the server's forwarding statistics in one embed.
 */
import { InteractionContextType, SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { HandlerContext } from '../src/bot/context.js';
import { en } from '../src/i18n/en.js';
import { localizations } from '../src/i18n/index.js';
import { statsEmbed } from '../src/render/feeds.js';

export const data = new SlashCommandBuilder()
  .setName('stats')
  .setNameLocalizations(localizations('cmd.stats.name'))
  .setDescription(en['cmd.stats.description'])
  .setDescriptionLocalizations(localizations('cmd.stats.description'))
  .setContexts(InteractionContextType.Guild);

export function ephemeral(): boolean {
  return false;
}

export async function execute(_interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  const stats = await ctx.call((api, auth) => api.getStats(auth));
  await ctx.respond.send({ embeds: [statsEmbed(ctx.t, stats)] });
}
