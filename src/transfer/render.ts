/**
 * Embeds of the transfer feature: a batch's progress and stop line (shared with bulk delete), the
 * export's answer, the import preview with its buttons, and the import's final report.
 */
import { ButtonStyle, ComponentType, TimestampStyles, time, type APIEmbed, type APIEmbedField } from 'discord.js';
import type { MessageKey, Translator } from '../i18n/index.js';
import type { BatchProgress, BatchStop } from './batch.js';
import type { ImportRow, RowProblem } from './format.js';
import type { ImportPlan } from './plan.js';
import { kindsLabel } from '../render/labels.js';
import { noticeEmbed } from '../render/notice.js';
import type { MessageRow } from '../render/pager.js';
import { Colors, Limits } from '../render/style.js';
import { apiCode, apiText } from '../render/markdown.js';
import { truncate } from '../render/text.js';

/**
 * The one progress message of a batch: `countKey` is the caller's "{done} of {total} created"
 * (placeholders `done` and `total`); while waiting for the budget, when it continues.
 */
export function batchProgressEmbed(t: Translator, progress: BatchProgress, title: string, countKey: MessageKey): APIEmbed {
  const lines = [t(countKey, { done: progress.done, total: progress.total })];
  if (progress.refused > 0) lines.push(t('batch.refusedSoFar', { count: progress.refused }));
  if (progress.waitingUntil) lines.push(t('batch.waiting', { relative: time(progress.waitingUntil, TimestampStyles.RelativeTime) }));
  return { title, color: progress.waitingUntil ? Colors.warning : Colors.brand, description: lines.join('\n') };
}

/** Why a batch stopped early, in one sentence; `reason` explains an error stop (the caller's words for it). */
export function batchStopLine(t: Translator, stop: BatchStop, reason?: string): string {
  if (stop.reason === 'aborted') return t('batch.stop.aborted');
  if (stop.reason === 'error') return t('batch.stop.error', { reason: reason ?? '' });
  if (stop.resetAt) return t('batch.stop.deadlineWait', { relative: time(stop.resetAt, TimestampStyles.RelativeTime) });
  return t('batch.stop.deadline');
}

// ─── Export ───

export function exportEmbed(t: Translator, count: number): APIEmbed {
  const lines = [t('export.description', { count })];
  if (count === 0) lines.push(t('export.empty'));
  return { title: t('export.title'), color: Colors.success, description: lines.join('\n') };
}

// ─── Import ───

/** Rows listed by name in each part of the preview and the report; the rest are counted. */
const LISTED_ROWS = 10;

function channelMention(id: string): string {
  return /^\d{17,20}$/.test(id) ? `<#${id}>` : apiCode(id);
}

/** `Row 3 · @nasa → #space · Posts + Reels` */
function rowLine(t: Translator, feed: ImportRow, extra?: string): string {
  const parts = [`${t('import.preview.row', { row: feed.row })} · **@${apiText(feed.cuenta, { max: 100 })}** → ${channelMention(feed.canalId)}`, kindsLabel(t, feed.tipos)];
  if (extra) parts.push(extra);
  return parts.join(' · ');
}

/** What the file said, shown as text whatever it holds (no markdown, no mentions, bounded). */
function problemLine(t: Translator, problem: RowProblem): string {
  const label = problem.label ? ` · ${apiCode(problem.label, 60)}` : '';
  return `${t('import.preview.row', { row: problem.row })}${label}: ${t(problem.key, problem.vars)}`;
}

/** As many of `lines` as fit a field (and LISTED_ROWS), then "…and N more". */
function listField(t: Translator, name: string, lines: readonly string[]): APIEmbedField[] {
  if (lines.length === 0) return [];
  const shown: string[] = [];
  let length = 0;
  for (const [i, line] of lines.entries()) {
    const rest = lines.length - i;
    const bounded = truncate(line, 300);
    if (i >= LISTED_ROWS || length + bounded.length + 1 + (rest > 1 ? 40 : 0) > Limits.fieldValue) {
      shown.push(t('import.preview.more', { count: rest }));
      break;
    }
    shown.push(bounded);
    length += bounded.length + 1;
  }
  return [{ name: truncate(name, Limits.fieldName), value: shown.join('\n') }];
}

interface PreviewInput {
  fileName: string;
  plan: ImportPlan;
  expires: Date;
  ids: { confirm: string; cancel: string };
}

/** The dry run: what would be created, skipped and refused, with Import / Cancel (none when nothing would be created). */
export function importPreview(t: Translator, input: PreviewInput): { embeds: APIEmbed[]; components: MessageRow[] } {
  const { plan } = input;
  const create = plan.create.length;
  const lines = [t('import.preview.counts', { create, present: plan.present.length, invalid: plan.invalid.length })];
  if (plan.notes.withFilters > 0) lines.push(t('import.preview.filters', { count: plan.notes.withFilters }));
  if (plan.notes.notActive > 0) lines.push(t('import.preview.notActive', { count: plan.notes.notActive }));
  if (create > 0) {
    lines.push(t('import.preview.budget', { count: create }));
    lines.push(t('import.preview.expires', { expires: time(input.expires, TimestampStyles.RelativeTime) }));
  } else {
    lines.push(t('import.preview.nothing'));
  }
  const embed: APIEmbed = {
    title: truncate(t('import.preview.title', { file: apiText(input.fileName, { max: 100 }) }), Limits.title),
    color: create > 0 ? Colors.brand : Colors.warning,
    description: truncate(lines.join('\n'), Limits.description),
    fields: [
      ...listField(t, t('import.preview.create', { count: create }), plan.create.map((f) => rowLine(t, f))),
      ...listField(t, t('import.preview.present', { count: plan.present.length }), plan.present.map(({ feed, existingId }) => rowLine(t, feed, `#${existingId}`))),
      ...listField(t, t('import.preview.invalid', { count: plan.invalid.length }), plan.invalid.map((p) => problemLine(t, p))),
    ],
  };
  const components: MessageRow[] =
    create === 0
      ? []
      : [
          {
            type: ComponentType.ActionRow,
            components: [
              { type: ComponentType.Button, custom_id: input.ids.confirm, label: t('import.button.confirm', { count: create }), style: ButtonStyle.Primary },
              { type: ComponentType.Button, custom_id: input.ids.cancel, label: t('import.button.cancel'), style: ButtonStyle.Secondary },
            ],
          },
        ];
  return { embeds: [embed], components };
}

export function importCancelledEmbed(t: Translator): APIEmbed {
  return noticeEmbed(t('import.cancelled'));
}

export function importExpiredEmbed(t: Translator): APIEmbed {
  return noticeEmbed(t('import.expired'), Colors.warning);
}

export function importProgressEmbed(t: Translator, progress: BatchProgress): APIEmbed {
  return batchProgressEmbed(t, progress, t('import.progress.title'), 'import.progress.count');
}

/** How an import ended, per row. */
export interface ImportOutcome {
  created: readonly { feed: ImportRow; id: number }[];
  /** Already there when Import was pressed (from the preview, or created meanwhile). */
  present: number;
  refused: readonly { feed: ImportRow; reason: string }[];
  notAttempted: readonly ImportRow[];
  /** Why it stopped before the end (localized), when it did. */
  stopLine?: string;
}

/** The final report that replaces the progress message. */
export function importReportEmbed(t: Translator, outcome: ImportOutcome): APIEmbed {
  const complete = outcome.refused.length === 0 && outcome.notAttempted.length === 0;
  const summary = t('import.report.summary', {
    created: outcome.created.length,
    present: outcome.present,
    refused: outcome.refused.length,
    notAttempted: outcome.notAttempted.length,
  });
  const rerun = complete ? undefined : t('import.report.rerun');
  return {
    title: t(complete ? 'import.report.title' : 'import.report.title.incomplete'),
    color: complete ? Colors.success : Colors.warning,
    description: truncate([summary, outcome.stopLine, rerun].filter((line) => line !== undefined).join('\n'), Limits.description),
    fields: [
      ...listField(t, t('import.report.created', { count: outcome.created.length }), outcome.created.map(({ feed, id }) => rowLine(t, feed, `#${id}`))),
      ...listField(t, t('import.report.refused', { count: outcome.refused.length }), outcome.refused.map(({ feed, reason }) => `${rowLine(t, feed)}: ${reason}`)),
      ...listField(t, t('import.report.notAttempted', { count: outcome.notAttempted.length }), outcome.notAttempted.map((f) => rowLine(t, f))),
    ],
  };
}
