/**
 * What an import would do, decided before anything is created: which rows become feeds, which
 * are already there (same account into the same channel), and which cannot be imported and why.
 */
import { ChannelType } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { ChannelTypes } from '../bot/channel-directory.js';
import { feedIdentity, type ImportRow, type ParsedRow, type RowProblem } from './format.js';

/** Where a feed may forward: the channel types /feed create offers. */
const FEED_CHANNEL_TYPES: ReadonlySet<ChannelType | undefined> = new Set([ChannelType.GuildText, ChannelType.GuildAnnouncement]);

export interface ImportPlan {
  create: ImportRow[];
  /** Rows whose feed exists already: skipped, so a re-run imports only the rest. */
  present: { feed: ImportRow; existingId: number }[];
  invalid: RowProblem[];
  /** Rows to create whose exported feed had filters or was not `activo`: created without / active. */
  notes: { withFilters: number; notActive: number };
}

/**
 * `channels`: the guild's channels and their types; a row pointing elsewhere, or into a channel
 * that is not a text or announcement channel (a category, a voice channel, a thread), is invalid.
 */
export function planImport(rows: readonly ParsedRow[], existing: readonly FeedListItem[], channels: ChannelTypes): ImportPlan {
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
    if (!FEED_CHANNEL_TYPES.has(channels.get(feed.canalId))) {
      plan.invalid.push({ row: feed.row, label, key: 'transfer.invalid.channelType', vars: { channel: feed.canalId } });
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
