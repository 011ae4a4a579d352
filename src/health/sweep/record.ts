/**
 * What the sweeps keep per guild, beside the settings on the same backend (their own Keyv
 * namespace, `feedbot-sweeps`), in the clear: the last sweep's reduced snapshot (what the next one
 * compares with), when it ran and what it found, the weekly digest's plan, and this week's
 * created/deleted feed counts. Nothing in it is secret: no key, no post content.
 */
import { z } from 'zod';

export const SWEEP_NAMESPACE = 'feedbot-sweeps';

const KEY_STATES = ['ok', 'unauthorized', 'forbidden'] as const;
export type KeyState = (typeof KEY_STATES)[number];

export const SWEEP_RESULTS = ['ok', 'unauthorized', 'forbidden', 'error', 'deferred', 'no_audit_channel', 'no_key', 'claimed_elsewhere'] as const;
export type SweepResult = (typeof SWEEP_RESULTS)[number];

/** One feed, reduced to what a change is reported for. */
const FeedMarkSchema = z.object({
  active: z.boolean(),
  quiet: z.boolean(),
  channel: z.string().max(40),
  gone: z.boolean(),
});
export type FeedMark = z.infer<typeof FeedMarkSchema>;

/**
 * A feed's key in a snapshot: `String(id)` of any id the feed API contract allows (an integer,
 * which zod keeps within ±2^53, so 16 digits at most, and it may be negative). Records written
 * when this was `^\d{1,15}$` still read: every key they hold matches this too.
 */
export const FEED_KEY = /^-?\d{1,16}$/;

const SnapshotSchema = z.object({
  key: z.enum(KEY_STATES),
  /** The feeds as last seen with a working key (kept while the key fails: the recovery compares with them). */
  feeds: z.record(z.string().regex(FEED_KEY), FeedMarkSchema),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

export const SweepRecordSchema = z.object({
  v: z.literal(1),
  baseline: SnapshotSchema.optional(),
  last: z
    .object({
      at: z.number().int().nonnegative(),
      result: z.enum(SWEEP_RESULTS),
      /** Changes posted by that sweep. */
      changes: z.number().int().nonnegative(),
      feeds: z.number().int().nonnegative().optional(),
      /** Feeds with a warning (not active, quiet, channel gone). */
      warnings: z.number().int().nonnegative().optional(),
    })
    .optional(),
  digest: z
    .object({
      /** 0 = Monday … 6 = Sunday (ISO). */
      day: z.number().int().min(0).max(6),
      hour: z.number().int().min(0).max(23),
      /** The ISO week (`2026-W48`) whose digest was posted. */
      lastWeek: z.string().max(10).optional(),
    })
    .optional(),
  /** Feeds created and deleted in the ISO week `id` (counted from the audit events). */
  week: z.object({ id: z.string().max(10), created: z.number().int().nonnegative(), deleted: z.number().int().nonnegative() }).optional(),
});
export type SweepRecord = z.infer<typeof SweepRecordSchema>;

export const emptyRecord = (): SweepRecord => ({ v: 1 });

/** A stored value that no longer parses is read as empty: the next sweep takes a new baseline. */
export function parseRecord(value: unknown): SweepRecord {
  const parsed = SweepRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : emptyRecord();
}
