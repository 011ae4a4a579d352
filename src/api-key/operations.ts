/**
 * What /apikey and /feedbot settings both do with a server's key: store the one typed in the key
 * form (checked, probed, tied to this server, audited), show what is stored (never the key), and
 * remove it. The commands wire these to their own forms and panels.
 */
import type { Interaction, ModalSubmitInteraction } from 'discord.js';
import { ApiKeySchema, SCOPES, type Scope } from '@feedbot/feed-api-contract';
import { probeKey } from '../api/key-probe.js';
import type { HandlerContext } from '../bot/context.js';
import { UserError } from '../bot/errors.js';
import { maskKey, type StoredKey } from '../keys/store.js';
import { channelPlaces, judgeOwnership } from './ownership.js';
import type { KeyOwnership, KeyStatus, ScopeCheck } from './render.js';

/** How long ownership waits for the guild's channel list (HTTP mode; the gateway's is at hand). */
const CHANNEL_LOOKUP_MS = 2_000;

/** The key form's one field. */
export const KEY_INPUT_ID = 'key';

/** What was stored: the masked key, its scopes as probed, and whether it is tied to this server. */
interface SavedKey {
  masked: string;
  scopes: ScopeCheck;
  ownership: KeyOwnership;
}

/**
 * The key typed in the form, checked, probed, tied to this server, stored and audited. Shared by
 * /apikey set's modal and /feedbot settings' Set key (which redraws its panel afterwards).
 */
export async function storeKeyFromModal(interaction: ModalSubmitInteraction, ctx: HandlerContext): Promise<SavedKey> {
  const guildId = ctx.guildId();
  const apiKey = interaction.fields.getTextInputValue(KEY_INPUT_ID).trim();
  if (!ApiKeySchema.safeParse(apiKey).success) throw new UserError('apikey.badFormat');

  // Probing takes up to three requests: acknowledge first so the deadline is never at risk.
  await ctx.respond.defer();
  const probe = await probeKey(ctx.services.api.requester, apiKey);
  if (!probe.valid) {
    throw new UserError('apikey.invalid');
  }
  if (probe.planRequired && !SCOPES.some((s) => probe.scopes[s] === true)) {
    throw new UserError('apikey.planRequired');
  }
  // Refuse a key proven to be another server's; store one nothing could tie either way as
  // unverified, and say so (the rule is in ./ownership.ts).
  // The modal was acknowledged with a deferral first: a channel lookup (HTTP mode) has time.
  const here = probe.feedChannels?.length ? await ctx.services.channels.names(guildId, CHANNEL_LOOKUP_MS) : undefined;
  const owner = judgeOwnership(guildId, { servidor: probe.stats?.servidor, feedChannels: probe.feedChannels }, channelPlaces(interaction, guildId, here));
  if (owner.verdict === 'foreign') {
    throw owner.servidor ? new UserError('apikey.otherServer', { servidor: owner.servidor }) : new UserError('apikey.otherServer.channels');
  }
  const previous = await ctx.services.keys.get(guildId).catch(() => undefined);
  await ctx.services.keys.set(guildId, {
    apiKey,
    setBy: interaction.user.id,
    setAt: new Date(ctx.now()).toISOString(),
    scopes: SCOPES.filter((s) => probe.scopes[s] === true),
    unknownScopes: SCOPES.filter((s) => probe.scopes[s] === null),
    ownership: owner.verdict,
  });
  const replaced = previous !== undefined && previous.apiKey !== apiKey;
  if (replaced) await ctx.services.api.forgetKey(previous.apiKey);
  ctx.services.audit.record(guildId, { kind: 'keySet', actor: ctx.actor(), masked: maskKey(apiKey), replaced }, interaction.locale);
  return { masked: maskKey(apiKey), scopes: probe.scopes, ownership: owner.verdict };
}

/** What the store remembers of the probe: granted, unknown, or (otherwise) missing. */
function storedScopes(stored: StoredKey): ScopeCheck {
  const check = (s: Scope) => (stored.scopes.includes(s) ? true : (stored.unknownScopes ?? []).includes(s) ? null : false);
  return Object.fromEntries(SCOPES.map((s) => [s, check(s)])) as ScopeCheck;
}

/** What is shown about the guild's stored key (never the key), or undefined when none is stored. Shared with the settings panel. */
export async function keyStatus(ctx: HandlerContext): Promise<KeyStatus | undefined> {
  const stored = await ctx.services.keys.get(ctx.guildId());
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
export async function removeGuildKey(interaction: Interaction, ctx: HandlerContext): Promise<boolean> {
  const guildId = ctx.guildId();
  const stored = await ctx.services.keys.get(guildId).catch(() => undefined);
  const removed = await ctx.services.keys.delete(guildId);
  if (stored) await ctx.services.api.forgetKey(stored.apiKey);
  if (removed) ctx.services.audit.record(guildId, { kind: 'keyRemoved', actor: ctx.actor(), masked: stored && maskKey(stored.apiKey) }, interaction.locale);
  return removed;
}
