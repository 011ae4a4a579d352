/**
 * `/feedbot audit-channel status`'s health-check field: when the last sweep ran, what it found and
 * when the next is due, as Discord timestamps (each reader sees local time).
 */
import { TimestampStyles, time, type APIEmbedField } from 'discord.js';
import type { BotServices } from '../../interactions/context.js';
import type { MessageKey, Translator } from '../../i18n/index.js';
import type { SweepRecord } from './record.js';

const relative = (ms: number) => time(new Date(ms), TimestampStyles.RelativeTime);

/** Undefined when this bot runs no sweeps (HEALTH_SWEEP_SECONDS unset: tools and tests). */
export async function sweepStatusField(services: BotServices, guildId: string, t: Translator): Promise<APIEmbedField | undefined> {
  const sweeps = services.sweeps;
  if (!sweeps) return undefined;
  const name = t('sweep.status.field');
  const last = (await sweeps.store.get(guildId)).last;
  const next = relative(sweeps.scheduler.nextDue(guildId, (services.now ?? Date.now)()));
  if (!last) return { name, value: t('sweep.status.never', { next }) };
  return { name, value: t('sweep.status.last', { when: relative(last.at), found: found(t, last), next }) };
}

function found(t: Translator, last: NonNullable<SweepRecord['last']>): string {
  if (last.result === 'ok') return t('sweep.status.found.ok', { count: last.feeds ?? 0, warnings: last.warnings ?? 0, changes: last.changes });
  const keys: Partial<Record<typeof last.result, MessageKey>> = {
    unauthorized: 'sweep.status.found.unauthorized',
    forbidden: 'sweep.status.found.forbidden',
    error: 'sweep.status.found.error',
    deferred: 'sweep.status.found.deferred',
  };
  return t(keys[last.result] ?? 'sweep.status.found.other');
}
