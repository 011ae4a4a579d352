/**
 * /feed list [canal] [estado] [problemas] [cuenta] [pagina] — the guild's feeds, each marked with
 * its health warnings, a page at a time, under a panel (panel-view.ts): "Manage a feed…" opens a
 * feed's card (card.ts), a channel select, a state select and an "Only with a warning" toggle filter, and
 * Previous/Next page. Filters and pages edit the message in place for the person who asked.
 */
import { ChannelType, type SlashCommandSubcommandBuilder } from 'discord.js';
import { button, channelSelect, stringSelect, type SlashDeclaration } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int, optional, snowflake, type CustomIdCodec, type Decoded, type Part } from '../../src/interactions/custom-id.js';
import { ExpiredComponentError, InvalidOptionError } from '../../src/interactions/errors.js';
import { reportNoticedDeletions } from '../../src/health/deleted-channels.js';
import { healthView } from '../../src/health/feed-health.js';
import { parseAccountFilter, parseStateFilter } from './list-filter.js';
import { localize } from '../../src/i18n/localize.js';
import { feedListView } from './render-feeds.js';
import { boundedOption, integerOption } from '../../src/interactions/integer-options.js';
import { LIST_PAGE } from './integer-options.js';
import { manageSelectId } from './card.js';
import { ALL_STATES, listPanel } from './panel-view.js';

/** A lowercase filter token (a state, part of an account name): what parseStateFilter and parseAccountFilter return. */
const token = (max: number): Part<string> => ({
  write: (text) => text,
  read: (text) => (text !== '-' && text.length <= max && /^[a-z0-9_.-]+$/.test(text) ? { value: text } : undefined),
});
/** A state filter as a select option's value carries it. */
const stateToken = token(20);
const flag: Part<boolean> = { write: (on) => (on ? '1' : '0'), read: (text) => (text === '1' ? { value: true } : text === '0' ? { value: false } : undefined) };

/** Snowflakes in base 36 (≤ 13 characters instead of 20), so the filters fit Discord's 100. */
const snowflake36: Part<string> = {
  write: (id) => BigInt(id).toString(36),
  read(text) {
    if (!/^[1-9a-z][0-9a-z]{0,12}$/.test(text)) return undefined;
    const id = [...text].reduce((n, c) => n * 36n + BigInt(parseInt(c, 36)), 0n).toString();
    return snowflake.read(id);
  },
};

/** The ids buttons carried before the filters: still written when only canal is used, and read. */
const pageOnlyId = customId('feed:list', { page: int({ min: 1 }), channelId: optional(snowflake), userId: snowflake });
const filteredPageId = customId('feed:list', {
  page: int({ min: 1 }),
  channelId: optional(snowflake36),
  userId: snowflake36,
  problemas: flag,
  estado: optional(stateToken),
  cuenta: optional(token(30)),
});
type ListState = Decoded<typeof pageOnlyId> & { problemas?: boolean | undefined; estado?: string | undefined; cuenta?: string | undefined };

export const listPageId: CustomIdCodec<ListState> = {
  prefix: filteredPageId.prefix,
  encode: ({ problemas = false, estado, cuenta, ...page }) =>
    problemas || estado !== undefined || cuenta !== undefined ? filteredPageId.encode({ ...page, problemas, estado, cuenta }) : pageOnlyId.encode(page),
  decode: (id) => pageOnlyId.decode(id) ?? filteredPageId.decode(id),
};

/** The channel select: the filters it keeps (the channel is what it picks; a pick shows page 1). */
const channelFilterId = customId('feed:list-channel', { userId: snowflake36, problemas: flag, estado: optional(stateToken), cuenta: optional(token(30)) });
/** The state select: the filters it keeps (the state is what it picks; a pick shows page 1). */
const stateFilterId = customId('feed:list-state', { channelId: optional(snowflake36), userId: snowflake36, problemas: flag, cuenta: optional(token(30)) });

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('list'), { name: 'cmd.feed.list.name', description: 'cmd.feed.list.description' })
    .addChannelOption((o) =>
      localize(o.setName('canal'), { name: 'opt.canal.name', description: 'opt.canal.list.description' }).addChannelTypes(
        ChannelType.GuildText,
        ChannelType.GuildAnnouncement,
      ),
    )
    .addStringOption((o) =>
      localize(o.setName('estado'), { name: 'opt.estado.name', description: 'opt.estado.list.description' }).setAutocomplete(true).setMaxLength(40),
    )
    .addBooleanOption((o) => localize(o.setName('problemas'), { name: 'opt.problemas.name', description: 'opt.problemas.list.description' }))
    .addStringOption((o) => localize(o.setName('cuenta'), { name: 'opt.cuenta.name', description: 'opt.cuenta.list.description' }).setMaxLength(200))
    .addIntegerOption((o) => localize(boundedOption(o, LIST_PAGE), { name: 'opt.pagina.name', description: 'opt.pagina.description' }));
}

/**
 * `fresh` skips the feed cache: a typed command shows the truth; the panel's filters and pages
 * reuse it, so navigating costs no request while it is fresh. A feed whose channel is gone has
 * that channel reported to the audit channel, once (deleted-channels.ts).
 */
async function listPage(ctx: HandlerContext, state: ListState, fresh: boolean, channelName: string | undefined) {
  const result = await ctx.call((api, auth) => api.listFeeds(auth, { fresh }));
  const health = await healthView(ctx.services, ctx.guildId(), result.feeds);
  await reportNoticedDeletions(ctx.services, ctx.guildId(), result.feeds, health, ctx.interaction.locale);
  const { estado, cuenta, problemas } = state;
  const view = feedListView(ctx.t, result, { page: state.page, channelId: state.channelId, channelName, filters: { estado, cuenta, problemas }, health });
  if (state.page > view.pages) throw new InvalidOptionError('list.pageOutOfRange', { page: state.page, pages: view.pages });
  return {
    embeds: [view.embed],
    components: listPanel(ctx.t, {
      filters: state,
      view,
      feeds: result.feeds,
      staleAfterDays: health.staleAfterDays,
      ids: {
        manage: manageSelectId.encode({}),
        channel: channelFilterId.encode({ userId: state.userId, problemas: state.problemas ?? false, estado, cuenta }),
        state: stateFilterId.encode({ channelId: state.channelId, userId: state.userId, problemas: state.problemas ?? false, cuenta }),
        toggle: listPageId.encode({ ...state, page: 1, problemas: !state.problemas }),
        page: (page) => listPageId.encode({ ...state, page }),
      },
    }),
  };
}

/** Public: a listing is for everyone in the channel. */
export const subcommand: SlashDeclaration = {
  guildOnly: true,
  ephemeral: false,
  async run(interaction, ctx) {
    const channel = interaction.options.getChannel('canal');
    const estado = interaction.options.getString('estado');
    const cuenta = interaction.options.getString('cuenta');
    const state: ListState = {
      page: integerOption(interaction, ctx.t, LIST_PAGE) ?? 1,
      channelId: channel?.id,
      userId: interaction.user.id,
      problemas: interaction.options.getBoolean('problemas') ?? false,
      estado: estado === null ? undefined : parseStateFilter(estado),
      cuenta: cuenta === null ? undefined : parseAccountFilter(cuenta),
    };
    await ctx.respond.send(await listPage(ctx, state, true, channel?.name ?? undefined));
  },
};

/** A page turn shows the channel filter's name if it is known quickly (HTTP mode fetches it). */
const PAGE_CHANNEL_LOOKUP_MS = 500;

async function channelNameOf(ctx: HandlerContext, guildId: string, channelId: string | undefined): Promise<string | undefined> {
  return channelId ? (await ctx.services.channels.names(guildId, PAGE_CHANNEL_LOOKUP_MS))?.get(channelId) : undefined;
}

/**
 * The panel edits the public message everyone sees: only whoever ran /feed list may filter or
 * page it; anyone else is told, privately, to run it themselves.
 */
const ownerOnly = 'panel.notYours';

/** Previous/Next and the "Only with a warning" toggle: the state they show is in their custom_id. */
export const pageButton = button({
  id: listPageId,
  guildOnly: true,
  answer: 'update',
  ephemeral: true,
  invokerOnly: ownerOnly,
  async run(interaction, ctx, state) {
    await ctx.respond.send(await listPage(ctx, state, false, await channelNameOf(ctx, interaction.guildId!, state.channelId)));
  },
});

/** The channel filter: the channel chosen (none: every channel) on page 1, the other filters kept. */
export const channelFilterSelect = channelSelect({
  id: channelFilterId,
  guildOnly: true,
  answer: 'update',
  ephemeral: true,
  invokerOnly: ownerOnly,
  async run(interaction, ctx, filters) {
    const channel = interaction.channels.first();
    const name = channel && 'name' in channel && typeof channel.name === 'string' ? channel.name : undefined;
    await ctx.respond.send(await listPage(ctx, { ...filters, page: 1, channelId: channel?.id }, false, name));
  },
});

/** The state filter: the state chosen (or every state) on page 1, the other filters kept. */
export const stateFilterSelect = stringSelect({
  id: stateFilterId,
  guildOnly: true,
  answer: 'update',
  ephemeral: true,
  invokerOnly: ownerOnly,
  async run(interaction, ctx, filters) {
    const picked = interaction.values[0];
    const estado = picked === undefined || picked === ALL_STATES ? undefined : stateToken.read(picked)?.value;
    if (picked !== undefined && picked !== ALL_STATES && estado === undefined) throw new ExpiredComponentError();
    await ctx.respond.send(await listPage(ctx, { ...filters, page: 1, estado }, false, await channelNameOf(ctx, interaction.guildId!, filters.channelId)));
  },
});
