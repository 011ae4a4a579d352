/**
 * What an open import confirmation keeps, as checked on the way back from the store: the value may
 * have been written by another replica (or by another version of the bot during a deploy), so it
 * is read as untrusted JSON. A value that does not pass reads as an expired confirmation.
 */
import { z } from 'zod';
import { ACCOUNT_NAME_PATTERN, CONTENT_KINDS } from '@feedbot/feed-api-contract';
import { catalogues, type MessageKey } from '../i18n/index.js';
import { MAX_LABEL_LENGTH, MAX_STATE_LENGTH, type ImportRow, type RowProblem } from './format.js';
import type { ImportPlan } from './plan.js';

const SNOWFLAKE = z.string().regex(/^\d{17,20}$/);

const ImportRowSchema: z.ZodType<ImportRow> = z.object({
  row: z.number().int().positive(),
  // As the file's reader left it: an account name the API accepts, at most so much of the state.
  cuenta: z.string().regex(ACCOUNT_NAME_PATTERN),
  canalId: SNOWFLAKE,
  tipos: z.array(z.enum(CONTENT_KINDS)).min(1),
  filtros: z.number().int().nonnegative(),
  estado: z.string().max(MAX_STATE_LENGTH).optional(),
});

const RowProblemSchema: z.ZodType<RowProblem> = z.object({
  row: z.number().int().positive(),
  label: z.string().max(MAX_LABEL_LENGTH),
  key: z.custom<MessageKey>((key) => typeof key === 'string' && Object.hasOwn(catalogues.en, key)),
  vars: z.record(z.string(), z.union([z.string(), z.number()])),
});

/** An import preview's checked plan. */
export const ImportPlanSchema: z.ZodType<ImportPlan> = z.object({
  create: z.array(ImportRowSchema).min(1),
  present: z.array(z.object({ feed: ImportRowSchema, existingId: z.number().int().positive() })),
  invalid: z.array(RowProblemSchema),
  notes: z.object({ withFilters: z.number().int().nonnegative(), notActive: z.number().int().nonnegative() }),
});
