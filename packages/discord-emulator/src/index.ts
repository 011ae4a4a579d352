/**
 * A local Discord emulator for an unmodified discord.js 14 client: REST (`/api/v10`), the JSON
 * gateway, interactions with Discord's deadlines and limits, and a control API.
 *
 *   const emu = await startEmulator({ applicationId, botToken, guilds: generateGuilds(1) });
 *   new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiUrl } }).login(botToken);
 *
 * See ./README.md.
 */
import { DiscordEmulator, type EmulatorOptions } from './emulator.js';

export { DiscordEmulator, type EmulatorOptions, type InteractionInput, type Actor } from './emulator.js';
export { InteractionHandle, WaitTimeoutError, isSettled, type ActorOverrides } from './handle.js';
export { generateGuilds, normalizeGuild, memberPermissions, ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission, type GenerateGuildsOptions, type NormalizedGuild } from './guilds.js';
export {
  buildAutocompleteInteraction,
  buildButtonInteraction,
  buildChatInputInteraction,
  buildCommandOptions,
  buildModalSubmission,
  buildModalSubmitInteraction,
  buildSelectInteraction,
  InteractionInputError,
  type InteractionContext,
  type ModalValues,
  type OptionInput,
} from './payloads.js';
export { shardForGuild, snowflake, fixedSnowflake, makeBotToken } from './snowflake.js';
export { LIMITS, validateMessagePayload, validateModalData, validateAutocompleteData, validateCommandList } from './validation.js';
export { CloseCode, NoGatewaySessionError, type ShardStatus } from './gateway.js';
export type { EmulatorEventMap, EmulatorEvents, GatewayEvent, MessageEvent } from './events.js';
export type * from './types.js';

/** Starts an emulator on loopback (port 0 = any free port) and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions): Promise<DiscordEmulator> {
  return new DiscordEmulator(options).listen();
}
