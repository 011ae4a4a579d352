/**
 * Feeds created and deleted this ISO week, for the digest: an audit trail that counts the
 * feedCreated and feedDeleted events it is given (whether or not an audit channel is set) in the
 * guild's sweep record, then hands every event on. Counting never delays or fails the command.
 */
import type { AuditTrail } from '../../audit/events.js';
import type { Logger } from '../../logger.js';
import type { SweepStore } from './store.js';
import { isoWeek } from './weeks.js';

export function countingWeeklyChanges(trail: AuditTrail, store: SweepStore, logger: Logger, now: () => number = Date.now): AuditTrail & { settled(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  return {
    record(guildId, event, locale) {
      trail.record(guildId, event, locale);
      if (event.kind !== 'feedCreated' && event.kind !== 'feedDeleted') return;
      const id = isoWeek(now());
      const counting = store
        .update(guildId, (current) => {
          const week = current.week?.id === id ? current.week : { id, created: 0, deleted: 0 };
          const next = event.kind === 'feedCreated' ? { ...week, created: week.created + 1 } : { ...week, deleted: week.deleted + 1 };
          return { next: { ...current, week: next }, result: undefined };
        })
        .catch((error: unknown) => logger.warn({ guildId, err: error }, 'weekly feed count not kept for the digest'))
        .finally(() => pending.delete(counting));
      pending.add(counting);
    },
    flush: (...args: Parameters<AuditTrail['flush']>) => trail.flush(...args),
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
