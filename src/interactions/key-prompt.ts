/**
 * The key prompt /apikey set and /feedbot settings' Set key share: the key typed in the form,
 * checked, probed, tied to this server, stored and audited. An interaction piece (it acknowledges
 * the modal before probing); what is shown and removed of a stored key is src/api-key/operations.ts.
 */
import type { ModalSubmitInteraction } from 'discord.js';
import { ApiKeySchema, SCOPES } from '@feedbot/feed-api-contract';
import { probeKey } from '../api/key-probe.js';
import { channelPlaces, judgeOwnership } from '../api-key/ownership.js';
import type { KeyOwnership, ScopeCheck } from '../api-key/render.js';
import { maskKey } from '../keys/store.js';
import type { HandlerContext } from './context.js';
import { UserError } from './errors.js';

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
  // unverified, and say so (the rule is in src/api-key/ownership.ts).
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
