/**
 * The components under /feed list (at most four action rows of Discord's five):
 *   1. "Manage a feed…": a string select of the page's feeds (≤ FEEDS_PER_PAGE = 10 of the 25
 *      options allowed), id, account and health marks; it opens the chosen feed's card;
 *   2. a channel select (text and announcement channels) showing the channel filter;
 *   3. a state select showing the state filter;
 *   4. the Problems only toggle, then Previous/Next when there are several pages.
 * Pure: the page's view and the filters in, Discord JSON out; the custom_ids come from list.ts.
 */
import { ButtonStyle, ChannelType, ComponentType, SelectMenuDefaultValueType, type APIButtonComponent, type APISelectMenuOption } from 'discord.js';
import { FEED_STATES, type FeedListItem } from '@feedbot/feed-api-contract';
import { WARNING_ICONS, warningText } from '../../src/health/feed-health.js';
import type { FeedRow } from './list-filter.js';
import type { MessageKey, Translator } from '../../src/i18n/index.js';
import type { FeedListView } from './render-feeds.js';
import { plainLine } from '../../src/render/markdown.js';
import { pagerRows, type MessageRow } from '../../src/render/pager.js';

/** The state select's "every state" option (never a state: states are lowercase tokens without `*`). */
export const ALL_STATES = '*';
/** Discord's limits for a select. */
const MAX_OPTIONS = 25;
const MAX_LABEL = 100;
/** A state a custom_id can carry (see list.ts). */
const STATE_TOKEN = /^(?!-$)[a-z0-9_.-]{1,20}$/;

interface PanelFilters {
  channelId?: string | undefined;
  estado?: string | undefined;
  problemas?: boolean | undefined;
}

interface PanelInput {
  filters: PanelFilters;
  view: FeedListView;
  /** Every feed of the server (the state select offers the states they have). */
  feeds: readonly FeedListItem[];
  staleAfterDays: number | undefined;
  ids: {
    manage: string;
    channel: string;
    state: string;
    /** The toggle: the same view with Problems only flipped, on page 1. */
    toggle: string;
    /** Previous/Next. */
    page(page: number): string;
  };
}

function manageOption(t: Translator, row: FeedRow, staleAfterDays: number | undefined): APISelectMenuOption {
  const icons = row.warnings.map((w) => WARNING_ICONS[w]).join('');
  const label = `#${row.feed.id} · @${plainLine(row.feed.cuenta)}`;
  return {
    label: plainLine(icons ? `${icons} ${label}` : label, MAX_LABEL),
    value: String(row.feed.id),
    description: plainLine(warningText(t, row.warnings, staleAfterDays) ?? t('panel.manage.healthy'), MAX_LABEL),
  };
}

const KNOWN_STATE_LABELS: Record<string, MessageKey> = { activo: 'state.activo', pausado: 'state.pausado' };

/** Every known state, then those the server's feeds have that the bot does not know, and the current filter. */
function stateOptions(t: Translator, feeds: readonly FeedListItem[], current: string | undefined): APISelectMenuOption[] {
  const states = [...new Set([...FEED_STATES, ...feeds.map((f) => f.estado.toLowerCase()), ...(current ? [current] : [])])].filter((s) => STATE_TOKEN.test(s));
  const options = states.slice(0, MAX_OPTIONS - 1).map((state) => {
    const key = KNOWN_STATE_LABELS[state];
    return { label: key ? t(key) : plainLine(state, MAX_LABEL), value: state, default: state === current };
  });
  return [{ label: t('panel.state.all'), value: ALL_STATES, default: current === undefined }, ...options];
}

export function listPanel(t: Translator, input: PanelInput): MessageRow[] {
  const { filters, view, feeds, ids } = input;
  // No feed at all: there is nothing to manage nor filter.
  if (feeds.length === 0) return [];
  const rows: MessageRow[] = [];
  if (view.rows.length > 0) {
    rows.push({
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.StringSelect,
          custom_id: ids.manage,
          placeholder: t('panel.manage.placeholder'),
          options: view.rows.slice(0, MAX_OPTIONS).map((row) => manageOption(t, row, input.staleAfterDays)),
        },
      ],
    });
  }
  rows.push({
    type: ComponentType.ActionRow,
    components: [
      {
        type: ComponentType.ChannelSelect,
        custom_id: ids.channel,
        placeholder: t('panel.channel.placeholder'),
        channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
        // No channel chosen (cleared) lists every channel again.
        min_values: 0,
        max_values: 1,
        ...(filters.channelId ? { default_values: [{ id: filters.channelId, type: SelectMenuDefaultValueType.Channel }] } : {}),
      },
    ],
  });
  rows.push({
    type: ComponentType.ActionRow,
    components: [{ type: ComponentType.StringSelect, custom_id: ids.state, placeholder: t('panel.state.placeholder'), options: stateOptions(t, feeds, filters.estado) }],
  });
  const toggle: APIButtonComponent = {
    type: ComponentType.Button,
    custom_id: ids.toggle,
    label: t(filters.problemas ? 'panel.problems.on' : 'panel.problems.off'),
    style: filters.problemas ? ButtonStyle.Primary : ButtonStyle.Secondary,
  };
  const [pager] = pagerRows(t, view.page, view.pages, ids.page);
  rows.push({ type: ComponentType.ActionRow, components: [toggle, ...(pager?.components ?? [])] });
  return rows;
}
