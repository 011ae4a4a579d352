/**
 * A local Discord emulator for an unmodified discord.js 14 client: REST (`/api/v10`), the JSON
 * gateway, interactions with Discord's deadlines and limits, and a control API.
 *
 *   const emu = await startEmulator({ applicationId, botToken, guilds: generateGuilds(1) });
 *   new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiUrl } }).login(botToken);
 *
 * Unit-test doubles without an emulator (payloads, a REST recorder) are in `./testing`.
 * See ../README.md.
 */
import { DiscordEmulator } from './emulator.js';
import type { EmulatorOptions } from './options.js';

export { DiscordEmulator } from './emulator.js';
export type { Actor, EmulatorOptions, InteractionInput } from './options.js';
export { InteractionHandle, WaitTimeoutError, isSettled, type ActorOverrides } from './handle.js';
export type { OverwriteInput, PermissionBits } from './emulator-admin.js';
export { GuildChangeError, type ChannelInit } from './guild-changes.js';
export { ATTACHMENT_SIZE_LIMIT, type StoredFile } from './attachments.js';
export { basePermissions, channelPermissions, OverwriteType } from './permissions.js';
export { generateGuilds, normalizeGuild, memberPermissions, ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission, type GenerateGuildsOptions, type NormalizedGuild } from './guilds.js';
export * from './payloads/interactions.js';
export type { InteractionContext, InteractionOrigin } from './payloads/origin.js';
export { buildCommandOptions, InteractionInputError, type AttachmentSource, type AttachmentUpload, type OptionInput } from './payloads/options.js';
export { buildModalSubmission, type ModalValues } from './payloads/modal.js';
export { shardForGuild, snowflake, fixedSnowflake, makeBotToken } from './snowflake.js';
export { LIMITS } from './validation/fields.js';
export { validateMessagePayload } from './validation/messages.js';
export { validateModalData, validateAutocompleteData } from './validation/modals.js';
export { validateCommandList } from './validation/commands.js';
export { CloseCode, NoGatewaySessionError, type ShardStatus } from './gateway/protocol.js';
export { InteractionsEndpointError, ENDPOINT_NOT_VERIFIED, type EndpointCheck } from './http-delivery/endpoint-check.js';
export { InteractionSigner, type PrivateKeyInput } from './http-delivery/signer.js';
export { USER_AGENT as INTERACTIONS_USER_AGENT, type EndpointCa } from './http-delivery/transport.js';
export type { DeliveryOutcome, DeliveryRecord } from './http-delivery/delivery-log.js';
export type { IdentifyBucket } from './gateway/identify-limit.js';
export type { ChannelEvent, EmulatorEventMap, EmulatorEvents, GatewayEvent, GuildEvent, MessageEvent } from './events.js';
export type * from './types.js';
export { UserMessageSchema, type UserMessageInput } from './user-messages.js';

/** Starts an emulator on loopback (port 0 = any free port) and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions): Promise<DiscordEmulator> {
  return new DiscordEmulator(options).listen();
}
export { RestFaults, RestFaultRuleSchema, type RestFaultRule, type RestFault } from './rest-faults.js';
