/**
 * /feed delete: the confirmations (one feed, or every feed of a channel or with a warning) with
 * their two buttons, and what replaces them: the answer, or a bulk delete's final report.
 */
import { ButtonStyle, ComponentType, TimestampStyles, time, type APIEmbed, type APIEmbedField } from 'discord.js';
import type { DeleteFeedResponse, FeedListItem } from '@feedbot/feed-api-contract';
import type { FeedSummary } from '../../src/audit/events.js';
import type { Translator } from '../../src/i18n/index.js';
import { quotedApiText } from '../../src/render/api-text.js';
import { noticeEmbed } from '../../src/render/notice.js';
import type { MessageRow } from '../../src/render/pager.js';
import { Colors, Limits } from '../../src/render/style.js';
import { apiCode, apiText } from '../../src/render/markdown.js';
import { truncate } from '../../src/render/text.js';

/** What a confirmation says besides its feeds: health marks, and the role that allowed the asker. */
interface ConfirmationContext {
  /** The feed's warnings as one line (`warningText`), when it has any. */
  marks?: string;
  /** The feed-manager role that allowed the asker; absent when Manage Server did. */
  viaRoleId?: string;
}

type ConfirmationMessage = { embeds: APIEmbed[]; components: MessageRow[] };

function confirmButtons(t: Translator, ids: { confirm: string; cancel: string }, confirmLabel: string): MessageRow[] {
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        { type: ComponentType.Button, custom_id: ids.confirm, label: confirmLabel, style: ButtonStyle.Danger },
        { type: ComponentType.Button, custom_id: ids.cancel, label: t('delete.button.cancel'), style: ButtonStyle.Secondary },
      ],
    },
  ];
}

/** A role mention: shown as the role's name, and never a ping (embeds do not mention). */
function allowedByLine(t: Translator, viaRoleId: string | undefined): string | undefined {
  return viaRoleId === undefined ? undefined : t('delete.allowedBy', { role: `<@&${viaRoleId}>` });
}

/** The private question "Delete feed #1?", Delete/Cancel, and when it stops being valid. */
export function deleteConfirmation(
  t: Translator,
  feed: FeedListItem,
  expires: Date,
  ids: { confirm: string; cancel: string },
  context: ConfirmationContext = {},
): ConfirmationMessage {
  const id = feed.id;
  const description = t('delete.confirm.description', {
    id,
    details: t('delete.confirm.details', { cuenta: apiText(feed.cuenta, { max: 100 }), channel: feed.canal }),
    expires: time(expires, TimestampStyles.RelativeTime),
  });
  const lines = [description, context.marks, allowedByLine(t, context.viaRoleId)].filter((line) => line !== undefined);
  return {
    embeds: [{ title: t('delete.confirm.title', { id }), color: Colors.warning, description: truncate(lines.join('\n'), Limits.description) }],
    components: confirmButtons(t, ids, t('delete.button.confirm')),
  };
}

/**
 * After Delete. The API's `mensaje` ("Feed 6 eliminado") only repeats the confirmation, in the
 * API's language: it is shown only when `ok` is false, as a quoted detail that may say why.
 */
export function deletedEmbed(t: Translator, id: number, result: DeleteFeedResponse): APIEmbed {
  if (result.ok) return { title: t('delete.done.title'), color: Colors.success, description: t('delete.done', { id }) };
  const detail = quotedApiText(t, result.mensaje);
  return noticeEmbed([t('delete.notConfirmed', { id }), detail].filter(Boolean).join('\n'), Colors.warning);
}

export function deleteCancelledEmbed(t: Translator, id: number): APIEmbed {
  return noticeEmbed(t('delete.cancelled', { id }));
}

export function confirmationExpiredEmbed(t: Translator): APIEmbed {
  return noticeEmbed(t('delete.expired'), Colors.warning);
}

// ─── Bulk delete ───

/** Feeds listed by name in a bulk confirmation; the rest are counted ("and 12 more"). */
const BULK_CONFIRM_LISTED = 15;

function channelMention(id: string): string {
  return /^\d{1,20}$/.test(id) ? `<#${id}>` : apiCode(id);
}

/** `#3 @nasa → #space`, for lists of feeds. */
function feedLine(feed: FeedSummary): string {
  const cuenta = feed.cuenta === undefined ? '' : ` @${apiText(feed.cuenta, { max: 100 })}`;
  const channel = feed.canalId === undefined ? '' : ` → ${channelMention(feed.canalId)}`;
  return `**#${feed.id}**${cuenta}${channel}`;
}

/** As many of `lines` as fit in `max` characters (and `maxLines`), then "and N more". */
function linesWithin(t: Translator, lines: readonly string[], max: number, maxLines = lines.length): string {
  const shown: string[] = [];
  let length = 0;
  for (const [i, line] of lines.entries()) {
    const rest = lines.length - i;
    // Room for this line and, if others would follow, for the "and N more" line.
    const reserve = rest > 1 ? 40 : 0;
    if (i >= maxLines || length + line.length + 1 + reserve > max) {
      shown.push(t('bulkDelete.more', { count: rest }));
      break;
    }
    shown.push(line);
    length += line.length + 1;
  }
  return shown.join('\n');
}

interface BulkConfirmationInput extends Pick<ConfirmationContext, 'viaRoleId'> {
  /** Every feed of this channel, or (absent) every feed with a warning. */
  channelId?: string;
  /** The feeds chosen one by one in /feed delete's picker (neither a channel's nor the warned ones). */
  chosen?: boolean;
  feeds: readonly { feed: FeedSummary; marks?: string }[];
  expires: Date;
}

/** "Delete 9 feeds?": the feeds that would go (with their marks), Delete/Cancel, and the expiry. */
export function bulkDeleteConfirmation(t: Translator, input: BulkConfirmationInput, ids: { confirm: string; cancel: string }): ConfirmationMessage {
  const count = input.feeds.length;
  const intro = input.chosen
    ? t('forms.delete.confirm.chosen', { count })
    : input.channelId === undefined
      ? t('bulkDelete.confirm.problems', { count })
      : t('bulkDelete.confirm.channel', { count, channel: input.channelId });
  const lines = input.feeds.map(({ feed, marks }) => (marks ? `${feedLine(feed)} · ${marks}` : feedLine(feed)));
  const outro = [allowedByLine(t, input.viaRoleId), t('bulkDelete.confirm.outro', { expires: time(input.expires, TimestampStyles.RelativeTime) })];
  const fixed = [intro, ...outro].filter((line) => line !== undefined);
  const listRoom = Limits.description - fixed.join('\n').length - 4;
  const description = [intro, linesWithin(t, lines, listRoom, BULK_CONFIRM_LISTED), ...outro.filter((line) => line !== undefined)].join('\n');
  return {
    embeds: [{ title: t('bulkDelete.confirm.title', { count }), color: Colors.warning, description: truncate(description, Limits.description) }],
    components: confirmButtons(t, ids, t('bulkDelete.button.confirm', { count })),
  };
}

export function bulkDeleteCancelledEmbed(t: Translator): APIEmbed {
  return noticeEmbed(t('bulkDelete.cancelled'));
}

/** How a bulk delete ended, per feed. */
export interface BulkDeleteOutcome {
  deleted: readonly FeedSummary[];
  /** Not in the list any more when Delete was pressed, or answered 404: gone either way. */
  gone: readonly FeedSummary[];
  failed: readonly { feed: FeedSummary; reason: string }[];
  notAttempted: readonly FeedSummary[];
  /** Why it stopped before the end (localized), when it did. */
  stopReason?: string;
}

function outcomeField(name: string, lines: readonly string[], t: Translator): APIEmbedField[] {
  if (lines.length === 0) return [];
  return [{ name: truncate(name, Limits.fieldName), value: linesWithin(t, lines, Limits.fieldValue, 20) }];
}

/** The final report that replaces the progress message. */
export function bulkDeleteReportEmbed(t: Translator, outcome: BulkDeleteOutcome): APIEmbed {
  const complete = outcome.failed.length === 0 && outcome.notAttempted.length === 0;
  const summary = t('bulkDelete.report.summary', {
    deleted: outcome.deleted.length,
    gone: outcome.gone.length,
    failed: outcome.failed.length,
    notAttempted: outcome.notAttempted.length,
  });
  const rerun = outcome.notAttempted.length > 0 ? t('bulkDelete.report.rerun') : undefined;
  const description = [summary, outcome.stopReason, rerun].filter((line) => line !== undefined).join('\n');
  return {
    title: t(complete ? 'bulkDelete.report.title' : 'bulkDelete.report.title.incomplete'),
    color: complete ? Colors.success : Colors.warning,
    description: truncate(description, Limits.description),
    fields: [
      ...outcomeField(t('bulkDelete.report.deleted', { count: outcome.deleted.length }), outcome.deleted.map(feedLine), t),
      ...outcomeField(t('bulkDelete.report.gone', { count: outcome.gone.length }), outcome.gone.map(feedLine), t),
      ...outcomeField(
        t('bulkDelete.report.failed', { count: outcome.failed.length }),
        outcome.failed.map(({ feed, reason }) => `${feedLine(feed)}: ${truncate(reason, 300)}`),
        t,
      ),
      ...outcomeField(t('bulkDelete.report.notAttempted', { count: outcome.notAttempted.length }), outcome.notAttempted.map(feedLine), t),
    ],
  };
}
