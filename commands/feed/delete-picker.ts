/**
 * /feed delete without an option: a private picker of the server's feeds, a multi-select of up to
 * 25 (account, id and health marks), in pages with Previous/Next that update the message in place
 * (the guild's feed list is cached, so a page costs no upstream request while it is fresh).
 * Choosing feeds replaces the picker with bulk delete's confirmation for exactly those
 * (bulk-delete.ts: same plan store, same batch runner and progress).
 */
import { ComponentType, type AnySelectMenuInteraction, type APIEmbed, type ButtonInteraction, type StringSelectMenuInteraction } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { button, stringSelect, type ComponentRoute } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int, snowflake } from '../../src/interactions/custom-id.js';
import { UserError } from '../../src/interactions/errors.js';
import { feedWarnings, healthView, WARNING_ICONS, warningLabel, type HealthView } from '../../src/health/feed-health.js';
import type { Translator } from '../../src/i18n/index.js';
import { kindsLabel } from '../../src/render/labels.js';
import { plainLine } from '../../src/render/markdown.js';
import { pagerRows, type MessageRow } from '../../src/render/pager.js';
import { Colors } from '../../src/render/style.js';
import type { BulkDelete } from './bulk-delete.js';

/** A select holds at most 25 options. */
const PICKER_PAGE_SIZE = 25;
/** One page every id reads back: far above what a server's plan allows. */
const MAX_PAGE = 1000;

const pickerPageId = customId('feed:delete-page', { userId: snowflake, page: int({ min: 1, max: MAX_PAGE }) });
const pickerSelectId = customId('feed:delete-pick', { userId: snowflake, page: int({ min: 1, max: MAX_PAGE }) });

/** One option: `@nasa · #12`, described by its marks (or its kinds when it is healthy). Plain text: options render no markdown. */
function option(t: Translator, feed: FeedListItem, view: HealthView) {
  const warnings = feedWarnings(feed, view);
  const icons = warnings.map((w) => WARNING_ICONS[w]).join('');
  const marks = warnings.map((w) => warningLabel(t, w, view.staleAfterDays).slice(WARNING_ICONS[w].length + 1)).join(' · ');
  return {
    label: plainLine(`${icons ? `${icons} ` : ''}@${feed.cuenta} · #${feed.id}`, 100),
    value: String(feed.id),
    description: plainLine(marks || kindsLabel(t, feed.tipos, { plain: true }), 100),
  };
}

/** The picker at `page` (clamped to the pages there are). */
function pickerMessage(t: Translator, feeds: readonly FeedListItem[], view: HealthView, userId: string, page: number): { embeds: APIEmbed[]; components: MessageRow[] } {
  const sorted = [...feeds].sort((a, b) => a.id - b.id);
  const pages = Math.max(1, Math.ceil(sorted.length / PICKER_PAGE_SIZE));
  const at = Math.min(Math.max(1, page), pages);
  const shown = sorted.slice((at - 1) * PICKER_PAGE_SIZE, at * PICKER_PAGE_SIZE);
  const embed: APIEmbed = {
    title: t('forms.delete.title'),
    color: Colors.warning,
    description: t('forms.delete.description', { count: sorted.length }),
    ...(pages > 1 ? { footer: { text: t('forms.delete.page', { page: at, pages }) } } : {}),
  };
  const select: MessageRow = {
    type: ComponentType.ActionRow,
    components: [
      {
        type: ComponentType.StringSelect,
        custom_id: pickerSelectId.encode({ userId, page: at }),
        placeholder: t('forms.delete.placeholder'),
        min_values: 1,
        max_values: shown.length,
        options: shown.map((feed) => option(t, feed, view)),
      },
    ],
  };
  return { embeds: [embed], components: [select, ...pagerRows(t, at, pages, (p) => pickerPageId.encode({ userId, page: p }))] };
}

async function showPicker(ctx: HandlerContext, userId: string, page: number): Promise<void> {
  const list = await ctx.call((api, auth) => api.listFeeds(auth));
  if (list.feeds.length === 0) throw new UserError('forms.delete.none');
  const view = await healthView(ctx.services, ctx.guildId(), list.feeds);
  await ctx.respond.send(pickerMessage(ctx.t, list.feeds, view, userId, page));
}

interface DeletePicker {
  /** The slash command without an option: the picker's first page, as a new private message. */
  open(ctx: HandlerContext, userId: string): Promise<void>;
  pageButton: ComponentRoute<ButtonInteraction>;
  select: ComponentRoute<AnySelectMenuInteraction>;
}

const MANAGES_FEEDS = { guildOnly: true, requires: { permission: 'ManageFeeds', action: 'deleteFeed' } } as const;

export function createDeletePicker(bulk: BulkDelete): DeletePicker {
  return {
    open: (ctx, userId) => showPicker(ctx, userId, 1),
    pageButton: button({
      ...MANAGES_FEEDS,
      id: pickerPageId,
      invokerOnly: true,
      answer: 'update',
      ephemeral: true,
      run: (_interaction, ctx, { userId, page }) => showPicker(ctx, userId, page),
    }),
    select: stringSelect({
      ...MANAGES_FEEDS,
      id: pickerSelectId,
      invokerOnly: true,
      answer: 'update',
      ephemeral: true,
      async run(interaction: StringSelectMenuInteraction, ctx) {
        // Values are the ids this version wrote; anything else is ignored rather than guessed at.
        const ids = interaction.values.filter((v) => /^[1-9]\d{0,15}$/.test(v)).map(Number);
        await bulk.ask(interaction, ctx, { kind: 'chosen', ids });
      },
    }),
  };
}
