/**
 * What /apikey and /feedbot settings both show and remove of a server's stored key (never the
 * key itself). Storing one typed in the key form is the key prompt, src/interactions/key-prompt.ts.
 */
import { SCOPES, type Scope } from '@feedbot/feed-api-contract';
import type { Actor } from '../audit/events.js';
import type { BotServices } from '../interactions/context.js';
import { maskKey, type StoredKey } from '../keys/store.js';
import type { KeyStatus, ScopeCheck } from './render.js';

/** What the store remembers of the probe: granted, unknown, or (otherwise) missing. */
function storedScopes(stored: StoredKey): ScopeCheck {
  const check = (s: Scope) => (stored.scopes.includes(s) ? true : (stored.unknownScopes ?? []).includes(s) ? null : false);
  return Object.fromEntries(SCOPES.map((s) => [s, check(s)])) as ScopeCheck;
}

/** What is shown about the guild's stored key (never the key), or undefined when none is stored. Shared with the settings panel. */
export async function keyStatus(services: Pick<BotServices, 'keys'>, guildId: string): Promise<KeyStatus | undefined> {
  const stored = await services.keys.get(guildId);
  if (!stored) return undefined;
  return {
    masked: maskKey(stored.apiKey),
    setBy: stored.setBy,
    setAt: stored.setAt,
    scopes: storedScopes(stored),
    // Records from before the check carry no ownership: nothing was proved about them.
    ownership: stored.ownership ?? 'unverified',
  };
}

/** Removes the guild's key, forgets what the client holds for it, audits it; whether one was removed. Shared with the settings panel. */
export async function removeGuildKey(services: Pick<BotServices, 'keys' | 'api' | 'audit'>, guildId: string, actor: Actor, locale?: string): Promise<boolean> {
  const stored = await services.keys.get(guildId).catch(() => undefined);
  const removed = await services.keys.delete(guildId);
  if (stored) await services.api.forgetKey(stored.apiKey);
  if (removed) services.audit.record(guildId, { kind: 'keyRemoved', actor, masked: stored && maskKey(stored.apiKey) }, locale);
  return removed;
}
