/**
 * What each open confirmation keeps, as checked on the way back from the store: the value may
 * have been written by another replica (or by another version of the bot during a deploy), so it
 * is read as untrusted JSON. A value that does not pass reads as an expired confirmation. The
 * import's is src/transfer/plan-schema.ts.
 */
import { z } from 'zod';
import type { FeedSummary } from '../../src/audit/events.js';

/** The feed a single delete asks about: what its audit post names. */
export const FeedSummarySchema: z.ZodType<FeedSummary> = z.object({
  id: z.number().int().positive(),
  cuenta: z.string().optional(),
  canalId: z.string().optional(),
  tipos: z.array(z.string()).optional(),
});

/** The feeds a bulk delete asks about. */
export const BulkPlanSchema: z.ZodType<readonly FeedSummary[]> = z.array(FeedSummarySchema).min(1);
