/**
 * "The key stopped working": after the API answers 401 to a guild's stored key (regenerated or
 * revoked in the dashboard), the audit channel hears it once for that key, and again for a later
 * key that stops working in turn. Which key was reported is remembered in the guild's settings as
 * a fingerprint (fingerprint.ts), never the key; a guild without an audit channel stores nothing.
 */
import type { BotServices } from '../interactions/context.js';
import { maskKey } from '../keys/mask.js';
import { keyFingerprint } from './fingerprint.js';

export type KeyNoticeServices = Pick<BotServices, 'keys' | 'settings' | 'audit' | 'logger'>;

/** Called on a 401 to `guildId`'s key. Never throws; resolves once the post is queued (or not needed). */
export async function noticeRejectedKey(services: KeyNoticeServices, guildId: string, locale?: string): Promise<void> {
  try {
    const settings = await services.settings.get(guildId);
    if (!settings.auditChannelId) return;
    const stored = await services.keys.get(guildId);
    if (!stored) return;
    const fingerprint = keyFingerprint(stored.apiKey);
    if (settings.keyStoppedNotified === fingerprint) return;
    // Decided inside the update, which runs one at a time per guild: two 401s at once post once.
    let first = false;
    await services.settings.update(guildId, (current) => {
      first = current.auditChannelId !== undefined && current.keyStoppedNotified !== fingerprint;
      return first ? { ...current, keyStoppedNotified: fingerprint } : current;
    });
    if (first) services.audit.record(guildId, { kind: 'keyStoppedWorking', masked: maskKey(stored.apiKey) }, locale);
  } catch (error) {
    services.logger.warn({ guildId, err: error }, 'could not tell the audit channel that the API key stopped working');
  }
}
