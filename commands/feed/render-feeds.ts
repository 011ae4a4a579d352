/**
 * Embeds for feeds: the list, a created feed, and the autocomplete label of a feed. Like every
 * renderer (each beside its feature, the shared pieces in src/render), these are pure functions from
 * API data to Discord JSON, so the exact payloads are easy to test and every limit is enforced in
 * one place.
 */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import type { CreateFeedResponse, FeedListItem, FeedListResponse } from '@feedbot/feed-api-contract';
import type { Translator } from '../../src/i18n/index.js';
import { knownPlanName } from '../../src/i18n/plans.js';
import { warningText, type HealthView } from '../../src/health/feed-health.js';
import { filterFeeds, type FeedFilters, type FeedRow, type FilteredFeeds } from './list-filter.js';
import { kindsLabel, stateLabel } from '../../src/render/labels.js';
import { Colors, Limits } from '../../src/render/style.js';
import { apiCode, apiText, codeContent, plainLine } from '../../src/render/markdown.js';
import { dateTime, truncate, unixSeconds } from '../../src/render/text.js';
import { packPages } from '../../src/render/pager.js';

/** Feeds per page when they are short; long values make pages smaller (see paginateFeeds). */
const FEEDS_PER_PAGE = 10;
/** Room kept for the title and footer when packing fields under the 6000-character limit. */
const LIST_FIELD_BUDGET = 5_000;

/**
 * The feed's latest post: when it was forwarded to Discord (`ultimoPost`), the one meaning the
 * list, the card and /feed posts give "latest post".
 */
function latestForwarded(t: Translator, iso: string | null): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return t('list.never');
  return t('list.latest', { at: unixSeconds(iso) });
}

function channelMention(id: string): string {
  return /^\d{1,20}$/.test(id) ? `<#${id}>` : apiCode(id);
}

/** One feed; `warnings` (icon + words, see health/feed-health.ts) is its last line when it has any. */
function feedField(t: Translator, feed: FeedListItem, warnings?: string): APIEmbedField {
  const value = t('list.field.value', {
    channel: channelMention(feed.canal),
    estado: stateLabel(t, feed.estado),
    tipos: kindsLabel(t, feed.tipos),
    filtros: t('list.filters', { count: feed.filtros }),
    ultimoPost: latestForwarded(t, feed.ultimoPost),
  });
  return {
    name: truncate(t('list.field.name', { id: feed.id, cuenta: apiText(feed.cuenta, { max: 100 }) }), Limits.fieldName),
    value: truncate(warnings ? `${value}\n${warnings}` : value, Limits.fieldValue),
  };
}

/**
 * Splits the feed fields into pages: at most FEEDS_PER_PAGE fields (≤ 25) and at most
 * LIST_FIELD_BUDGET characters each, so a page always fits one embed and one message.
 */
function paginateFeeds(fields: APIEmbedField[]): APIEmbedField[][] {
  return packPages(fields, FEEDS_PER_PAGE, LIST_FIELD_BUDGET, (field) => field.name.length + field.value.length);
}

export interface FeedListView {
  embed: APIEmbed;
  page: number;
  pages: number;
  /** The feeds shown on this page, with their warnings (the panel's "Manage a feed…" options). */
  rows: FeedRow[];
}

interface FeedListOptions {
  page: number;
  /** The channel filter; `channelName` labels it in the title. */
  channelId?: string | undefined;
  channelName?: string | undefined;
  /** The other filters (`filters.channelId` is ignored: `channelId` is the channel filter). */
  filters?: Omit<FeedFilters, 'channelId'>;
  /** What the warnings are judged against; without it, no feed is marked. */
  health?: HealthView | undefined;
}

/**
 * The embed for one page of `/feed list`. `page` is 1-based and clamped; each feed is marked with
 * its warnings, and an empty page says which filter matched nothing.
 */
export function feedListView(t: Translator, list: FeedListResponse, opts: FeedListOptions): FeedListView {
  const filters: FeedFilters = { ...opts.filters, channelId: opts.channelId };
  const filtered = filterFeeds(list.feeds, filters, opts.health);
  const staleAfterDays = opts.health?.staleAfterDays;
  const pages = paginateFeeds(filtered.rows.map((r) => feedField(t, r.feed, warningText(t, r.warnings, staleAfterDays))));
  const pageCount = Math.max(1, pages.length);
  const page = Math.min(Math.max(1, opts.page), pageCount);
  const title = opts.channelId
    ? t('list.title.channel', { channel: apiText(opts.channelName ?? opts.channelId, { max: 100 }) })
    : t('list.title');
  const embed: APIEmbed = {
    title: truncate(title, Limits.title),
    color: Colors.brand,
    footer: {
      text: truncate(
        t('list.footer', {
          total: list.total,
          plan: t('list.plan', { plan: knownPlanName(t, list.plan) ?? apiText(list.plan, { max: 100 }) }),
          page,
          pages: pageCount,
        }),
        Limits.footer,
      ),
    },
  };
  const fields = pages[page - 1];
  const before = pages.slice(0, page - 1).reduce((n, p) => n + p.length, 0);
  const rows = filtered.rows.slice(before, before + (fields?.length ?? 0));
  if (fields && fields.length > 0) {
    embed.fields = fields;
    const summary = filterSummary(t, filters, filtered.rows.length);
    if (summary) embed.description = summary;
  } else embed.description = emptyExplanation(t, filters, filtered);
  return { embed, page, pages: pageCount, rows };
}

/** The filters besides the channel (which the title names), with how many feeds match them. */
function filterSummary(t: Translator, filters: FeedFilters, count: number): string | undefined {
  const parts = [
    filters.cuenta !== undefined ? t('health.list.filter.cuenta', { cuenta: codeContent(filters.cuenta, 100) }) : undefined,
    filters.estado !== undefined ? t('health.list.filter.estado', { estado: stateLabel(t, filters.estado) }) : undefined,
    filters.problemas ? t('health.list.filter.problemas') : undefined,
  ].filter((part) => part !== undefined);
  return parts.length ? truncate(t('health.list.filtered', { count, filters: parts.join(' · ') }), Limits.description) : undefined;
}

/** Why the page is empty: no feed at all, or the first filter that left none. */
function emptyExplanation(t: Translator, filters: FeedFilters, filtered: FilteredFeeds): string {
  const why = (() => {
    switch (filtered.emptiedBy) {
      case undefined:
        return t('list.empty');
      case 'canal':
        return t('list.empty.channel', { channel: filters.channelId ?? '' });
      case 'cuenta':
        return t('health.list.empty.cuenta', { cuenta: codeContent(filters.cuenta ?? '', 100) });
      case 'estado':
        return t('health.list.empty.estado', { estado: stateLabel(t, filters.estado ?? '') });
      case 'problemas':
        return t('health.list.empty.problemas');
    }
  })();
  const others = filtered.matchWithout > 0 ? ` ${t('health.list.empty.others', { count: filtered.matchWithout })}` : '';
  return truncate(`${why}${others}`, Limits.description);
}

/**
 * A created feed as the user is shown it: the API's answer to the create, or, when that answer
 * was lost, the feed found in the list afterwards (no creation time there).
 */
export type ShownFeed = Omit<CreateFeedResponse, 'creado'> & { creado?: string; confirmedByList?: boolean };

export function createdFeedEmbed(t: Translator, feed: ShownFeed, kinds: readonly string[]): APIEmbed {
  return {
    title: t('create.title'),
    color: Colors.success,
    description: t('create.description', { cuenta: apiText(feed.cuenta, { max: 100 }), channel: feed.canalId }),
    fields: [
      { name: t('create.field.id'), value: `#${feed.id}`, inline: true },
      { name: t('create.field.state'), value: stateLabel(t, feed.estado), inline: true },
      { name: t('create.field.kinds'), value: kindsLabel(t, kinds), inline: true },
      ...(feed.creado ? [{ name: t('create.field.created'), value: dateTime(feed.creado), inline: true }] : []),
    ],
    ...(feed.creado ? { timestamp: new Date(feed.creado).toISOString() } : {}),
    ...(feed.confirmedByList ? { footer: { text: t('create.confirmedByList') } } : {}),
  };
}

/** A feed as an autocomplete choice: `#1 · @nasa → #space · Posts + Reels`. */
export function feedChoiceName(t: Translator, feed: FeedListItem, channelName: string | undefined): string {
  const channel = channelName ?? feed.canal;
  return truncate(`#${feed.id} · @${plainLine(feed.cuenta)} → #${plainLine(channel)} · ${kindsLabel(t, feed.tipos, { plain: true })}`, Limits.choiceName);
}
