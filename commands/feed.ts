/**
 * /feed list | create | delete | posts — the guild's feeds, through the feed API.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  InteractionContextType,
  SlashCommandBuilder,
  TimestampStyles,
  time,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { CONTENT_KINDS, POSTS_LIMIT_DEFAULT, POSTS_LIMIT_MAX, type ContentKind, type FeedListItem } from '@feedbot/feed-api-contract';
import type { BotServices, HandlerContext } from '../src/bot/context.js';
import { UserError, InvalidOptionError } from '../src/bot/errors.js';
import { KIND_COMBINATIONS, parseAccount, parseKinds } from '../src/bot/options.js';
import { AUTOCOMPLETE_BUDGET_MS } from '../src/bot/router.js';
import { en, type MessageKey } from '../src/i18n/en.js';
import { localizations, t as translate, type Translator } from '../src/i18n/index.js';
import { createdFeedEmbed, feedListView, kindLabel, kindsLabel, noticeEmbed, paginatePosts, postEmbed } from '../src/render/feeds.js';
import { Colors, Limits } from '../src/render/style.js';
import { plain, truncate } from '../src/render/text.js';

const DEFAULT_CONFIRM_TTL_MS = 60_000;

const localized = <T extends { setDescription(d: string): T; setDescriptionLocalizations(l: Record<string, string>): T }>(
  b: T,
  key: MessageKey,
): T => b.setDescription(en[key]).setDescriptionLocalizations(localizations(key));

export const data = new SlashCommandBuilder()
  .setName('feed')
  .setDescription(en['cmd.feed.description'])
  .setDescriptionLocalizations(localizations('cmd.feed.description'))
  .setContexts(InteractionContextType.Guild)
  .addSubcommand((s) =>
    localized(s.setName('list').setNameLocalizations(localizations('cmd.feed.list.name')), 'cmd.feed.list.description')
      .addChannelOption((o) =>
        localized(o.setName('canal').setNameLocalizations(localizations('opt.canal.name')), 'opt.canal.list.description')
          .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
      )
      .addIntegerOption((o) =>
        localized(o.setName('pagina').setNameLocalizations(localizations('opt.pagina.name')), 'opt.pagina.description')
          .setMinValue(1)
          .setMaxValue(1000),
      ),
  )
  .addSubcommand((s) =>
    localized(s.setName('create').setNameLocalizations(localizations('cmd.feed.create.name')), 'cmd.feed.create.description')
      .addStringOption((o) =>
        localized(o.setName('cuenta').setNameLocalizations(localizations('opt.cuenta.name')), 'opt.cuenta.description')
          .setRequired(true)
          .setMinLength(1)
          .setMaxLength(200),
      )
      .addChannelOption((o) =>
        localized(o.setName('canal').setNameLocalizations(localizations('opt.canal.name')), 'opt.canal.create.description')
          .setRequired(true)
          .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
      )
      .addStringOption((o) =>
        localized(o.setName('tipos').setNameLocalizations(localizations('opt.tipos.name')), 'opt.tipos.description')
          .setRequired(true)
          .addChoices(
            ...KIND_COMBINATIONS.map((kinds) => ({
              name: kinds.map((k) => en[`kind.${k}`]).join(en['kinds.separator']),
              name_localizations: {
                'es-ES': kinds.map((k) => translate('es', `kind.${k}`)).join(' + '),
                'es-419': kinds.map((k) => translate('es', `kind.${k}`)).join(' + '),
              },
              value: kinds.join('+'),
            })),
          ),
      ),
  )
  .addSubcommand((s) =>
    localized(s.setName('delete').setNameLocalizations(localizations('cmd.feed.delete.name')), 'cmd.feed.delete.description')
      .addIntegerOption((o) =>
        localized(o.setName('id').setNameLocalizations(localizations('opt.id.name')), 'opt.id.delete.description')
          .setRequired(true)
          .setMinValue(1)
          .setAutocomplete(true),
      ),
  )
  .addSubcommand((s) =>
    localized(s.setName('posts').setNameLocalizations(localizations('cmd.feed.posts.name')), 'cmd.feed.posts.description')
      .addIntegerOption((o) =>
        localized(o.setName('id').setNameLocalizations(localizations('opt.id.name')), 'opt.id.posts.description')
          .setRequired(true)
          .setMinValue(1)
          .setAutocomplete(true),
      )
      .addIntegerOption((o) =>
        localized(o.setName('limite').setNameLocalizations(localizations('opt.limite.name')), 'opt.limite.description')
          .setMinValue(1)
          .setMaxValue(POSTS_LIMIT_MAX),
      )
      .addStringOption((o) =>
        localized(o.setName('tipo').setNameLocalizations(localizations('opt.tipo.name')), 'opt.tipo.description').addChoices(
          ...CONTENT_KINDS.map((k) => ({
            name: en[`kind.${k}`],
            name_localizations: { 'es-ES': translate('es', `kind.${k}`), 'es-419': translate('es', `kind.${k}`) },
            value: k,
          })),
        ),
      ),
  );

/** The delete confirmation is private to the admin; listings and results are for everyone. */
export function ephemeral(interaction: ChatInputCommandInteraction): boolean {
  return interaction.options.getSubcommand(false) === 'delete';
}

export async function execute(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  switch (interaction.options.getSubcommand(true)) {
    case 'list':
      return list(interaction, ctx);
    case 'create':
      return create(interaction, ctx);
    case 'delete':
      return askDelete(interaction, ctx);
    case 'posts':
      return posts(interaction, ctx);
    default:
      throw new UserError('error.unknownCommand');
  }
}

// ─── list ───────────────────────────────────────────────────────────────────────────────────

type Row = APIActionRowComponent<APIComponentInMessageActionRow>;

function pager(t: Translator, page: number, pages: number, idFor: (page: number) => string): Row[] {
  if (pages <= 1) return [];
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(idFor(page - 1))
      .setLabel(t('button.previous'))
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(page <= 1),
    new ButtonBuilder()
      .setCustomId(idFor(page + 1))
      .setLabel(t('button.next'))
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(page >= pages),
  );
  return [row.toJSON() as Row];
}

interface ListState {
  page: number;
  channelId: string | undefined;
  userId: string;
}

const listId = (s: ListState) => `feed:list:${s.page}:${s.channelId ?? '-'}:${s.userId}`;

async function renderList(ctx: HandlerContext, state: ListState, fresh: boolean, channelName?: string) {
  const result = await ctx.call((api, auth) => api.listFeeds(auth, { fresh }));
  const view = feedListView(ctx.t, result, { page: state.page, channelId: state.channelId, channelName });
  if (state.page > view.pages) throw new InvalidOptionError('list.pageOutOfRange', { page: state.page, pages: view.pages });
  return {
    embeds: [view.embed],
    components: pager(ctx.t, view.page, view.pages, (page) => listId({ ...state, page })),
  };
}

async function list(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  const channel = interaction.options.getChannel('canal');
  const state: ListState = {
    page: interaction.options.getInteger('pagina') ?? 1,
    channelId: channel?.id,
    userId: interaction.user.id,
  };
  await ctx.respond.send(await renderList(ctx, state, true, channel?.name ?? undefined));
}

// ─── create ─────────────────────────────────────────────────────────────────────────────────

async function create(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  ctx.requireManageGuild('createFeed');
  const cuenta = parseAccount(interaction.options.getString('cuenta', true));
  const channel = interaction.options.getChannel('canal', true, [ChannelType.GuildText, ChannelType.GuildAnnouncement]);
  const tipos = parseKinds(interaction.options.getString('tipos', true));
  const created = await ctx.call((api, auth) => api.createFeed(auth, { cuenta, canalId: channel.id, tipos, filtros: [] }), 201);
  await ctx.respond.send({ embeds: [createdFeedEmbed(ctx.t, created, tipos)] });
}

// ─── delete ─────────────────────────────────────────────────────────────────────────────────

/**
 * Timers that strip an expired confirmation's buttons, per bot (keyed by its services object) and
 * then by the confirmation's custom_id.
 */
const confirmationTimersByBot = new WeakMap<BotServices, Map<string, NodeJS.Timeout>>();

function confirmationTimers(services: BotServices): Map<string, NodeJS.Timeout> {
  let timers = confirmationTimersByBot.get(services);
  if (!timers) confirmationTimersByBot.set(services, (timers = new Map()));
  return timers;
}

/** For a clean shutdown: confirmations left open just expire by their custom_id. */
export function clearConfirmationTimers(services: BotServices): void {
  const timers = confirmationTimersByBot.get(services);
  for (const timer of timers?.values() ?? []) clearTimeout(timer);
  timers?.clear();
}

async function askDelete(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  ctx.requireManageGuild('deleteFeed');
  const id = interaction.options.getInteger('id', true);
  ctx.feedId = id;
  // The list is usually cached by autocomplete; it lets us refuse an unknown id before asking.
  const feeds = await ctx.call((api, auth) => api.listFeeds(auth));
  const feed = feeds.feeds.find((f) => f.id === id);
  if (!feed) throw new UserError('error.notFound', { id });

  const ttl = ctx.services.confirmTtlMs ?? DEFAULT_CONFIRM_TTL_MS;
  const expires = new Date(ctx.now() + ttl);
  const expiresUnix = Math.ceil(expires.getTime() / 1000);
  const key = `${id}:${interaction.user.id}:${expiresUnix}`;
  const t = ctx.t;
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(`feed:delete:yes:${key}`).setLabel(t('delete.button.confirm')).setStyle(ButtonStyle.Danger),
    new ButtonBuilder().setCustomId(`feed:delete:no:${key}`).setLabel(t('delete.button.cancel')).setStyle(ButtonStyle.Secondary),
  );
  await ctx.respond.send({
    embeds: [
      {
        title: t('delete.confirm.title', { id }),
        color: Colors.warning,
        description: t('delete.confirm.description', {
          id,
          details: t('delete.confirm.details', { cuenta: plain(feed.cuenta), channel: feed.canal }),
          expires: time(expires, TimestampStyles.RelativeTime),
        }),
      },
    ],
    components: [row.toJSON() as Row],
  });

  // Components never expire by themselves: take the buttons away when the minute is up.
  const timers = confirmationTimers(ctx.services);
  const timer = setTimeout(() => {
    timers.delete(key);
    void interaction
      .editReply({ embeds: [noticeEmbed(t('delete.expired'), Colors.warning)], components: [] })
      .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire a delete confirmation'));
  }, ttl);
  timer.unref?.();
  timers.set(key, timer);
}

async function confirmDelete(interaction: ButtonInteraction, ctx: HandlerContext, parts: string[]): Promise<void> {
  const [, , answer, idText, userId, expiresText] = parts;
  const id = Number(idText);
  if (userId !== interaction.user.id) throw new UserError('button.notYours');
  const key = `${idText}:${userId}:${expiresText}`;
  const timers = confirmationTimers(ctx.services);
  clearTimeout(timers.get(key));
  timers.delete(key);
  if (ctx.now() > Number(expiresText) * 1000) {
    await ctx.respond.send({ embeds: [noticeEmbed(ctx.t('delete.expired'), Colors.warning)], components: [] });
    return;
  }
  if (answer !== 'yes') {
    await ctx.respond.send({ embeds: [noticeEmbed(ctx.t('delete.cancelled', { id }))], components: [] });
    return;
  }
  ctx.requireManageGuild('deleteFeed');
  ctx.feedId = id;
  const result = await ctx.call((api, auth) => api.deleteFeed(auth, id));
  await ctx.respond.send({
    embeds: [{ title: ctx.t('delete.done.title'), color: Colors.success, description: truncate(plain(result.mensaje), Limits.description) }],
    components: [],
  });
}

// ─── posts ──────────────────────────────────────────────────────────────────────────────────

interface PostsState {
  id: number;
  limite: number;
  tipo: ContentKind | undefined;
  page: number;
  userId: string;
}

const postsId = (s: PostsState) => `feed:posts:${s.id}:${s.limite}:${s.tipo ?? '-'}:${s.page}:${s.userId}`;

async function renderPosts(ctx: HandlerContext, state: PostsState) {
  ctx.feedId = state.id;
  const result = await ctx.call((api, auth) =>
    api.listPosts(auth, state.id, { limite: state.limite, ...(state.tipo ? { tipo: state.tipo } : {}) }),
  );
  const t = ctx.t;
  if (result.posts.length === 0) {
    const message = state.tipo
      ? t('posts.empty.kind', { id: state.id, kind: kindLabel(t, state.tipo) })
      : t('posts.empty', { id: state.id });
    return { content: '', embeds: [noticeEmbed(message)], components: [] };
  }
  const pages = paginatePosts(result.posts.map((p) => postEmbed(t, p)));
  const page = Math.min(Math.max(1, state.page), pages.length);
  const before = pages.slice(0, page - 1).reduce((n, p) => n + p.length, 0);
  const embeds = pages[page - 1] ?? [];
  return {
    content: truncate(
      t('posts.header', { id: state.id, from: before + 1, to: before + embeds.length, total: result.posts.length }),
      Limits.content,
    ),
    embeds,
    components: pager(t, page, pages.length, (p) => postsId({ ...state, page: p })),
  };
}

async function posts(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  const tipo = interaction.options.getString('tipo');
  const state: PostsState = {
    id: interaction.options.getInteger('id', true),
    limite: interaction.options.getInteger('limite') ?? POSTS_LIMIT_DEFAULT,
    tipo: tipo && (CONTENT_KINDS as readonly string[]).includes(tipo) ? (tipo as ContentKind) : undefined,
    page: 1,
    userId: interaction.user.id,
  };
  await ctx.respond.send(await renderPosts(ctx, state));
}

// ─── buttons ────────────────────────────────────────────────────────────────────────────────

export function buttonMode(): 'update' {
  return 'update';
}

export async function button(interaction: ButtonInteraction, ctx: HandlerContext): Promise<void> {
  const parts = interaction.customId.split(':');
  switch (parts[1]) {
    case 'delete':
      return confirmDelete(interaction, ctx, parts);
    case 'list': {
      const [, , page, channel, userId] = parts;
      if (userId !== interaction.user.id) throw new UserError('button.notYours');
      const state: ListState = { page: Number(page), channelId: channel === '-' ? undefined : channel, userId };
      const channelName = state.channelId ? interaction.guild?.channels.cache.get(state.channelId)?.name : undefined;
      await ctx.respond.send(await renderList(ctx, state, false, channelName));
      return;
    }
    case 'posts': {
      const [, , id, limite, tipo, page, userId] = parts;
      if (userId !== interaction.user.id) throw new UserError('button.notYours');
      await ctx.respond.send(
        await renderPosts(ctx, {
          id: Number(id),
          limite: Number(limite),
          tipo: (CONTENT_KINDS as readonly string[]).includes(tipo ?? '') ? (tipo as ContentKind) : undefined,
          page: Number(page),
          userId,
        }),
      );
      return;
    }
    default:
      throw new UserError('error.expiredComponent');
  }
}

// ─── autocomplete ───────────────────────────────────────────────────────────────────────────

function matches(feed: FeedListItem, query: string, channelName: string | undefined): boolean {
  if (!query) return true;
  const q = query.toLowerCase().replace(/^[#@]/, '');
  return (
    String(feed.id).startsWith(q) ||
    feed.cuenta.toLowerCase().includes(q) ||
    (channelName?.toLowerCase().includes(q) ?? false)
  );
}

/**
 * Choices come from the per-guild cache. On a miss the list is fetched, but the answer waits at
 * most until the autocomplete budget runs out; the fetch still fills the cache for the next key.
 */
export async function autocomplete(interaction: AutocompleteInteraction, ctx: HandlerContext): Promise<void> {
  const started = ctx.now();
  const guildId = interaction.guildId;
  if (!guildId) return interaction.respond([]);
  let feeds = ctx.services.api.cachedFeeds(guildId);
  if (!feeds) {
    const stored = await ctx.services.keys.get(guildId);
    if (!stored) return interaction.respond([]);
    const budget = Math.max(0, AUTOCOMPLETE_BUDGET_MS - (ctx.now() - started));
    let timer: NodeJS.Timeout | undefined;
    const fetched = ctx.services.api.listFeeds({ apiKey: stored.apiKey, guildId }).catch((error: unknown) => {
      ctx.services.logger.debug({ err: error, guild: guildId }, 'autocomplete could not load the feed list');
      return undefined;
    });
    feeds = await Promise.race([
      fetched,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), budget);
      }),
    ]);
    clearTimeout(timer);
  }
  const query = String(interaction.options.getFocused() ?? '').trim();
  const channels = interaction.guild?.channels.cache;
  const choices = (feeds?.feeds ?? [])
    .filter((f) => matches(f, query, channels?.get(f.canal)?.name))
    .slice(0, Limits.choices)
    .map((f) => {
      const channel = channels?.get(f.canal)?.name ?? f.canal;
      return {
        name: truncate(`#${f.id} · @${plain(f.cuenta)} → #${plain(channel)} · ${kindsLabel(ctx.t, f.tipos)}`, Limits.choiceName),
        value: f.id,
      };
    });
  await interaction.respond(choices);
}
