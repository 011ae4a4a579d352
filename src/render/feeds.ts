/**
 * Embeds for feeds, posts and statistics. Pure functions from API data to Discord JSON, so the
 * exact payloads are easy to test and every limit is enforced in one place.
 */
import { escapeMarkdown, type APIEmbed, type APIEmbedField } from 'discord.js';
import type { CreateFeedResponse, FeedListItem, FeedListResponse, Post, Stats } from '@feedbot/feed-api-contract';
import type { Translator, MessageKey } from '../i18n/index.js';
import { Colors, Limits } from './style.js';
import { embedLength, plain, safeHttpUrl, truncate, unixSeconds } from './text.js';

/** Feeds per page when they are short; long values make pages smaller (see paginateFeeds). */
export const FEEDS_PER_PAGE = 10;
/** Room kept for the title and footer when packing fields under the 6000-character limit. */
const LIST_FIELD_BUDGET = 5_000;

const KNOWN_STATES: Record<string, MessageKey> = { activo: 'state.activo', pausado: 'state.pausado' };
const KNOWN_KINDS: Record<string, MessageKey> = { post: 'kind.post', reel: 'kind.reel', story: 'kind.story' };
const KNOWN_KIND_SINGULAR: Record<string, MessageKey> = { post: 'kind.one.post', reel: 'kind.one.reel', story: 'kind.one.story' };

/** A state we know gets a translated label; an unknown one is shown as the API sent it. */
export function stateLabel(t: Translator, estado: string): string {
  const key = KNOWN_STATES[estado];
  return key ? t(key) : `\`${truncate(plain(estado), 40)}\``;
}

export function kindLabel(t: Translator, kind: string): string {
  const key = KNOWN_KINDS[kind];
  return key ? t(key) : truncate(plain(kind), 40);
}

/** One post's kind ("Reel"), for a post's own title. */
export function singleKindLabel(t: Translator, kind: string): string {
  const key = KNOWN_KIND_SINGULAR[kind];
  return key ? t(key) : truncate(plain(kind), 40);
}

export function kindsLabel(t: Translator, kinds: readonly string[]): string {
  return kinds.length ? kinds.map((k) => kindLabel(t, k)).join(t('kinds.separator')) : '—';
}

function timestampOrNever(t: Translator, iso: string | null): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return t('list.never');
  return `<t:${unixSeconds(iso)}:R>`;
}

function channelMention(id: string): string {
  return /^\d{1,20}$/.test(id) ? `<#${id}>` : `\`${truncate(plain(id), 40)}\``;
}

export function feedField(t: Translator, feed: FeedListItem): APIEmbedField {
  return {
    name: truncate(t('list.field.name', { id: feed.id, cuenta: escapeMarkdown(plain(feed.cuenta)) }), Limits.fieldName),
    value: truncate(
      t('list.field.value', {
        channel: channelMention(feed.canal),
        estado: stateLabel(t, feed.estado),
        tipos: kindsLabel(t, feed.tipos),
        filtros: t('list.filters', { count: feed.filtros }),
        ultimoPost: timestampOrNever(t, feed.ultimoPost),
      }),
      Limits.fieldValue,
    ),
  };
}

/**
 * Splits the feed fields into pages: at most FEEDS_PER_PAGE fields (≤ 25) and at most
 * LIST_FIELD_BUDGET characters each, so a page always fits one embed and one message.
 */
export function paginateFeeds(fields: APIEmbedField[]): APIEmbedField[][] {
  const pages: APIEmbedField[][] = [];
  let page: APIEmbedField[] = [];
  let size = 0;
  for (const field of fields) {
    const len = field.name.length + field.value.length;
    if (page.length > 0 && (page.length >= FEEDS_PER_PAGE || size + len > LIST_FIELD_BUDGET)) {
      pages.push(page);
      page = [];
      size = 0;
    }
    page.push(field);
    size += len;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

export interface FeedListView {
  embed: APIEmbed;
  page: number;
  pages: number;
}

/**
 * The embed for one page of `/feed list`. `page` is 1-based and clamped; `channelName` labels a
 * channel filter when one was given.
 */
export function feedListView(
  t: Translator,
  list: FeedListResponse,
  opts: { page: number; channelId?: string | undefined; channelName?: string | undefined },
): FeedListView {
  const feeds = opts.channelId ? list.feeds.filter((f) => f.canal === opts.channelId) : list.feeds;
  const pages = paginateFeeds(feeds.map((f) => feedField(t, f)));
  const pageCount = Math.max(1, pages.length);
  const page = Math.min(Math.max(1, opts.page), pageCount);
  const title = opts.channelId
    ? t('list.title.channel', { channel: truncate(plain(opts.channelName ?? opts.channelId), 100) })
    : t('list.title');
  const embed: APIEmbed = {
    title: truncate(title, Limits.title),
    color: Colors.brand,
    footer: {
      text: truncate(
        t('list.footer', { total: list.total, plan: plain(list.plan), page, pages: pageCount }),
        Limits.footer,
      ),
    },
  };
  const fields = pages[page - 1];
  if (fields && fields.length > 0) embed.fields = fields;
  else embed.description = opts.channelId ? t('list.empty.channel', { channel: opts.channelId }) : t('list.empty');
  return { embed, page, pages: pageCount };
}

export function createdFeedEmbed(t: Translator, feed: CreateFeedResponse, kinds: readonly string[]): APIEmbed {
  return {
    title: t('create.title'),
    color: Colors.success,
    description: t('create.description', { cuenta: escapeMarkdown(plain(feed.cuenta)), channel: feed.canalId }),
    fields: [
      { name: t('create.field.id'), value: `#${feed.id}`, inline: true },
      { name: t('create.field.state'), value: stateLabel(t, feed.estado), inline: true },
      { name: t('create.field.kinds'), value: kindsLabel(t, kinds), inline: true },
      { name: t('create.field.created'), value: `<t:${unixSeconds(feed.creado)}:f>`, inline: true },
    ],
    timestamp: new Date(feed.creado).toISOString(),
  };
}

/** Caption room per post: ten posts with their fields stay under the 6000-character limit. */
const CAPTION_MAX = 400;

export function postEmbed(t: Translator, post: Post): APIEmbed {
  const caption = post.caption.trim() ? truncate(plain(post.caption), CAPTION_MAX) : t('posts.noCaption');
  const embed: APIEmbed = {
    title: truncate(`${singleKindLabel(t, post.tipo)} · ${plain(post.id)}`, Limits.title),
    description: caption,
    color: Colors.brand,
    fields: [
      { name: t('posts.field.published'), value: `<t:${unixSeconds(post.publicadoEn)}:f>`, inline: true },
      {
        name: t('posts.field.forwarded'),
        value: `<t:${unixSeconds(post.publicadoDiscord)}:f> (<t:${unixSeconds(post.publicadoDiscord)}:R>)`,
        inline: true,
      },
    ],
    timestamp: new Date(post.publicadoEn).toISOString(),
  };
  const url = safeHttpUrl(post.postUrl);
  if (url) embed.url = url;
  const media = safeHttpUrl(post.mediaUrl);
  if (media) embed.image = { url: media };
  return embed;
}

/**
 * Packs post embeds into messages: at most 10 embeds and 6000 characters each (the header line
 * travels as message content, which has its own 2000 limit).
 */
export function paginatePosts(embeds: APIEmbed[]): APIEmbed[][] {
  const pages: APIEmbed[][] = [];
  let page: APIEmbed[] = [];
  let size = 0;
  for (const embed of embeds) {
    const len = embedLength(embed);
    if (page.length > 0 && (page.length >= Limits.embedsPerMessage || size + len > Limits.charsPerMessage)) {
      pages.push(page);
      page = [];
      size = 0;
    }
    page.push(embed);
    size += len;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

export function statsEmbed(t: Translator, stats: Stats): APIEmbed {
  const none = t('stats.none');
  const activity = stats.ultimaActividad && !Number.isNaN(Date.parse(stats.ultimaActividad))
    ? `<t:${unixSeconds(stats.ultimaActividad)}:f> (<t:${unixSeconds(stats.ultimaActividad)}:R>)`
    : none;
  const field = (key: MessageKey, value: string, inline = true): APIEmbedField => ({
    name: t(key),
    value: truncate(value, Limits.fieldValue),
    inline,
  });
  return {
    title: t('stats.title'),
    color: Colors.brand,
    fields: [
      field('stats.field.servidor', `\`${plain(stats.servidor)}\``),
      field('stats.field.plan', plain(stats.plan)),
      field('stats.field.feedsActivos', String(stats.feedsActivos)),
      field('stats.field.feedsPausados', String(stats.feedsPausados)),
      field('stats.field.postsHoy', String(stats.postsHoy)),
      field('stats.field.postsEstaSemana', String(stats.postsEstaSemana)),
      field('stats.field.cuentaMasActiva', stats.cuentaMasActiva ? `@${escapeMarkdown(plain(stats.cuentaMasActiva))}` : none),
      field('stats.field.ultimaActividad', activity, false),
    ],
  };
}

export function errorEmbed(message: string): APIEmbed {
  return { color: Colors.danger, description: truncate(message, Limits.description) };
}

export function noticeEmbed(message: string, color: number = Colors.brand): APIEmbed {
  return { color, description: truncate(message, Limits.description) };
}
