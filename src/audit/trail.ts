/**
 * Posts audit events (events.ts) to the guild's audit channel. PLACEHOLDER during development of
 * issue 13: replaced by the real trail before this lands.
 */
import type { Client } from 'discord.js';
import type { Logger } from '../logger.js';
import type { GuildSettingsStore } from '../settings/store.js';
import type { AuditTrail } from './events.js';

export interface AuditTrailDeps {
  client: Client;
  settings: GuildSettingsStore;
  logger: Logger;
}

export function createAuditTrail(deps: AuditTrailDeps): AuditTrail {
  return {
    record: (guildId, event) => deps.logger.debug({ guildId, kind: event.kind }, 'audit event'),
    flush: () => Promise.resolve(),
  };
}
