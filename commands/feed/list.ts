/**
 * /feed list [canal] [pagina] — the guild's feeds, a page at a time, with Previous/Next for the
 * person who asked.
 */
import { ChannelType, type SlashCommandSubcommandBuilder } from 'discord.js';
import { button, type SlashDeclaration } from '../../src/bot/command.js';
import type { HandlerContext } from '../../src/bot/context.js';
import { customId, int, optional, snowflake, type Decoded } from '../../src/bot/custom-id.js';
import { InvalidOptionError } from '../../src/bot/errors.js';
import { localize } from '../../src/i18n/localize.js';
import { feedListView } from '../../src/render/feeds.js';
import { pagerRows } from '../../src/render/pager.js';
import { LIST_PAGE, boundedOption, integerOption } from './integer-options.js';

export const listPageId = customId('feed:list', { page: int({ min: 1 }), channelId: optional(snowflake), userId: snowflake });
type ListState = Decoded<typeof listPageId>;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('list'), { name: 'cmd.feed.list.name', description: 'cmd.feed.list.description' })
    .addChannelOption((o) =>
      localize(o.setName('canal'), { name: 'opt.canal.name', description: 'opt.canal.list.description' }).addChannelTypes(
        ChannelType.GuildText,
        ChannelType.GuildAnnouncement,
      ),
    )
    .addIntegerOption((o) => localize(boundedOption(o, LIST_PAGE), { name: 'opt.pagina.name', description: 'opt.pagina.description' }));
}

/** `fresh` skips the feed cache: a typed command shows the truth, page turns may reuse it. */
async function listPage(ctx: HandlerContext, state: ListState, fresh: boolean, channelName: string | undefined) {
  const result = await ctx.call((api, auth) => api.listFeeds(auth, { fresh }));
  const view = feedListView(ctx.t, result, { page: state.page, channelId: state.channelId, channelName });
  if (state.page > view.pages) throw new InvalidOptionError('list.pageOutOfRange', { page: state.page, pages: view.pages });
  return {
    embeds: [view.embed],
    components: pagerRows(ctx.t, view.page, view.pages, (page) => listPageId.encode({ ...state, page })),
  };
}

/** Public: a listing is for everyone in the channel. */
export const subcommand: SlashDeclaration = {
  guildOnly: true,
  ephemeral: false,
  async run(interaction, ctx) {
    const channel = interaction.options.getChannel('canal');
    const state: ListState = { page: integerOption(interaction, ctx.t, LIST_PAGE) ?? 1, channelId: channel?.id, userId: interaction.user.id };
    await ctx.respond.send(await listPage(ctx, state, true, channel?.name ?? undefined));
  },
};

/** A page turn shows the channel filter's name if it is known quickly (HTTP mode fetches it). */
const PAGE_CHANNEL_LOOKUP_MS = 500;

export const pageButton = button({
  id: listPageId,
  guildOnly: true,
  invokerOnly: true,
  answer: 'update',
  ephemeral: true,
  async run(interaction, ctx, state) {
    const channelName = state.channelId ? (await ctx.services.channels.names(interaction.guildId!, PAGE_CHANNEL_LOOKUP_MS))?.get(state.channelId) : undefined;
    await ctx.respond.send(await listPage(ctx, state, false, channelName));
  },
});
