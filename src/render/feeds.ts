/**
 * Embeds for feeds: the list, a created feed, and the autocomplete label of a feed. Everything in
 * src/render is a pure function from API data to Discord JSON, so the exact payloads are easy to
 * test and every limit is enforced in one place.
 */
import { escapeMarkdown, type APIEmbed, type APIEmbedField } from 'discord.js';
import type { CreateFeedResponse, FeedListItem, FeedListResponse } from '@feedbot/feed-api-contract';
import type { Translator } from '../i18n/index.js';
import { kindsLabel, stateLabel } from './labels.js';
import { Colors, Limits } from './style.js';
import { plain, truncate, unixSeconds } from './text.js';
import { packPages } from './pager.js';

/** Feeds per page when they are short; long values make pages smaller (see paginateFeeds). */
export const FEEDS_PER_PAGE = 10;
/** Room kept for the title and footer when packing fields under the 6000-character limit. */
const LIST_FIELD_BUDGET = 5_000;

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
  return packPages(fields, FEEDS_PER_PAGE, LIST_FIELD_BUDGET, (field) => field.name.length + field.value.length);
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

/** A feed as an autocomplete choice: `#1 · @nasa → #space · Posts + Reels`. */
export function feedChoiceName(t: Translator, feed: FeedListItem, channelName: string | undefined): string {
  const channel = channelName ?? feed.canal;
  return truncate(`#${feed.id} · @${plain(feed.cuenta)} → #${plain(channel)} · ${kindsLabel(t, feed.tipos)}`, Limits.choiceName);
}
