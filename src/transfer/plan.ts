/**
 * What an import would do, decided before anything is created: which rows become feeds, which
 * are already there (same account into the same channel), and which cannot be imported and why.
 */
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { feedIdentity, type ImportRow, type ParsedRow, type RowProblem } from './format.js';

export interface ImportPlan {
  create: ImportRow[];
  /** Rows whose feed exists already: skipped, so a re-run imports only the rest. */
  present: { feed: ImportRow; existingId: number }[];
  invalid: RowProblem[];
  /** Rows to create whose exported feed had filters or was not `activo`: created without / active. */
  notes: { withFilters: number; notActive: number };
}

/** `channels`: ids of the guild's channels; a row pointing elsewhere is invalid. */
export function planImport(rows: readonly ParsedRow[], existing: readonly FeedListItem[], channels: ReadonlySet<string>): ImportPlan {
  const plan: ImportPlan = { create: [], present: [], invalid: [], notes: { withFilters: 0, notActive: 0 } };
  const existingIds = new Map(existing.map((f) => [feedIdentity(f.cuenta, f.canal), f.id]));
  const firstRowOf = new Map<string, number>();
  for (const parsed of rows) {
    if (!parsed.ok) {
      plan.invalid.push(parsed.problem);
      continue;
    }
    const feed = parsed.feed;
    const label = `${feed.cuenta} → ${feed.canalId}`;
    if (!channels.has(feed.canalId)) {
      plan.invalid.push({ row: feed.row, label, key: 'transfer.invalid.channelMissing', vars: { channel: feed.canalId } });
      continue;
    }
    const identity = feedIdentity(feed.cuenta, feed.canalId);
    const first = firstRowOf.get(identity);
    if (first !== undefined) {
      plan.invalid.push({ row: feed.row, label, key: 'transfer.invalid.duplicate', vars: { first } });
      continue;
    }
    firstRowOf.set(identity, feed.row);
    const existingId = existingIds.get(identity);
    if (existingId !== undefined) {
      plan.present.push({ feed, existingId });
      continue;
    }
    plan.create.push(feed);
    if (feed.filtros > 0) plan.notes.withFilters += 1;
    if (feed.estado !== undefined && feed.estado !== 'activo') plan.notes.notActive += 1;
  }
  return plan;
}

/**
 * The rows of `plan.create` still to create against the list as it is now: anything created
 * meanwhile (another import, /feed create) moves to `present`.
 */
export function refreshPlan(plan: ImportPlan, existing: readonly FeedListItem[]): ImportPlan {
  const existingIds = new Map(existing.map((f) => [feedIdentity(f.cuenta, f.canal), f.id]));
  const create: ImportRow[] = [];
  const present = [...plan.present];
  for (const feed of plan.create) {
    const existingId = existingIds.get(feedIdentity(feed.cuenta, feed.canalId));
    if (existingId === undefined) create.push(feed);
    else present.push({ feed, existingId });
  }
  return { ...plan, create, present };
}
