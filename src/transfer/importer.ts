/**
 * The steps of an import (one POST /feeds each, for the batch runner) and what its report says.
 *
 * Nothing is created twice: a create refused before it reached the API (the local gate, a 429, a
 * 400) created nothing and is simply run again or reported. A create that may have reached the
 * API without us hearing the answer (a time-out, a reset connection, a 5xx, an unreadable answer)
 * is never sent again: the step re-lists the feeds and looks for it instead, and only when it is
 * not there is the row reported as not created (a re-run of the import creates it then).
 */
import { ServerError, mayHaveDoneWork } from '../api/errors.js';
import type { ApiAuth, FeedApiClient } from '../api/client.js';
import type { Actor, AuditTrail } from '../audit/events.js';
import type { Logger } from '../logger.js';
import { explain } from '../interactions/explain.js';
import type { Translator } from '../i18n/index.js';
import type { ImportOutcome } from './render.js';
import { StepRefusedError, type BatchReport, type BatchStep } from './batch.js';
import { feedIdentity, type ImportRow } from './format.js';

interface ImportedFeed {
  id: number;
  /** Found by re-listing after a create whose answer was lost. */
  confirmedByList: boolean;
}

function notCreated(error: unknown): StepRefusedError {
  if (error instanceof ServerError) return new StepRefusedError('transfer.reason.serverError', { status: error.status }, { cause: error });
  return new StepRefusedError('transfer.reason.notConfirmed', {}, { cause: error });
}

/** Who imports: the server, the member the audit trail names, and the API with the server's key. */
export interface Importer {
  services: { audit: AuditTrail; logger: Logger };
  guildId: string;
  actor: Actor;
  locale?: string;
  /** One feed API call with the server's key, read at each call (a key removed meanwhile stops the batch). */
  call<T>(op: (api: FeedApiClient, auth: ApiAuth) => Promise<T>): Promise<T>;
}

/** One step per row; each created feed is recorded in the audit trail as the actor's. */
export function importSteps(importer: Importer, rows: readonly ImportRow[]): BatchStep<ImportedFeed>[] {
  const { services, guildId, actor, locale } = importer;
  const audit = (id: number, row: ImportRow) =>
    services.audit.record(guildId, { kind: 'feedCreated', actor, feed: { id, cuenta: row.cuenta, canalId: row.canalId, tipos: row.tipos } }, locale);
  return rows.map((row) => {
    /** Set once a create may have reached the API: from then on the step only looks. */
    let uncertain: unknown;
    return {
      key: `${row.row}`,
      label: `${row.cuenta} → ${row.canalId}`,
      async run() {
        if (uncertain === undefined) {
          try {
            const created = await importer.call((api, auth) => api.createFeed(auth, { cuenta: row.cuenta, canalId: row.canalId, tipos: row.tipos, filtros: [] }));
            audit(created.id, row);
            return { id: created.id, confirmedByList: false };
          } catch (error) {
            if (!mayHaveDoneWork(error)) throw error;
            services.logger.warn({ err: error, row: row.row }, 'import: a create may have reached the API; checking the list before going on');
            uncertain = error;
          }
        }
        // A refusal of this list (budget) makes the runner wait and call run() again: it looks again.
        const list = await importer.call((api, auth) => api.listFeeds(auth, { fresh: true }));
        const identity = feedIdentity(row.cuenta, row.canalId);
        const found = list.feeds.find((f) => feedIdentity(f.cuenta, f.canal) === identity);
        if (!found) throw notCreated(uncertain);
        audit(found.id, row);
        return { id: found.id, confirmedByList: true };
      },
    };
  });
}

/** The user's words for why a step or the batch failed. */
function failureReason(t: Translator, error: unknown): string {
  if (error instanceof StepRefusedError) return t(error.reasonKey, error.vars);
  return explain(error, { t }).message;
}

/** The report's rows: `rows` are the steps' rows in the same order, `present` what was skipped. */
export function importOutcome(t: Translator, report: BatchReport<ImportedFeed>, rows: readonly ImportRow[], present: number): Omit<ImportOutcome, 'stopLine'> {
  const rowOf = new Map(rows.map((r) => [`${r.row}`, r]));
  const row = (key: string) => rowOf.get(key)!;
  return {
    created: report.done.map(({ step, result }) => ({ feed: row(step.key), id: result.id })),
    present,
    refused: report.refused.map(({ step, error }) => ({ feed: row(step.key), reason: failureReason(t, error) })),
    notAttempted: report.notAttempted.map((step) => row(step.key)),
  };
}
