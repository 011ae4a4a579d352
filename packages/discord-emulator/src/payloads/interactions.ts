/**
 * Builders for raw INTERACTION_CREATE payloads (discord-api-types v10 shapes). The emulator
 * dispatches what they build; unit tests can hand the same payloads to a discord.js client
 * (`dispatchInteraction` of `@feedbot/discord-emulator/testing`).
 *
 * From an emulator `InteractionContext` the result is typed as a guild interaction; from an
 * `InteractionOrigin` it may be a guild or a DM interaction.
 */
import {
  ApplicationCommandType,
  ComponentType,
  InteractionType,
  type APIApplicationCommand,
  type APIApplicationCommandAutocompleteGuildInteraction,
  type APIApplicationCommandAutocompleteInteraction,
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandGuildInteraction,
  type APIChatInputApplicationCommandInteraction,
  type APIInteractionDataResolved,
  type APIMessage,
  type APIMessageComponentGuildInteraction,
  type APIMessageComponentInteraction,
  type APIModalSubmissionComponent,
  type APIModalSubmitGuildInteraction,
  type APIModalSubmitInteraction,
  type APIMessageApplicationCommandGuildInteraction,
  type APIMessageApplicationCommandInteraction,
} from 'discord-api-types/v10';
import { envelope, type InteractionContext, type InteractionWhere } from './origin.js';

/** What a payload needs of a command: a registered one, or just a name and an id in unit tests. */
export type CommandRef = Pick<APIApplicationCommand, 'id' | 'name' | 'guild_id'>;

/** The guild variant when built from an emulator context, the general one otherwise. */
type Built<W, InGuild, Anywhere> = W extends InteractionContext ? InGuild : Anywhere;

export type SelectComponentType =
  | ComponentType.StringSelect
  | ComponentType.UserSelect
  | ComponentType.RoleSelect
  | ComponentType.MentionableSelect
  | ComponentType.ChannelSelect;

function commandData(command: CommandRef, options: APIApplicationCommandInteractionDataOption[], resolved?: APIInteractionDataResolved) {
  return {
    id: command.id,
    name: command.name,
    type: ApplicationCommandType.ChatInput as const,
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
    ...(options.length > 0 ? { options } : {}),
    ...(resolved ? { resolved } : {}),
  };
}

export function buildChatInputInteraction<W extends InteractionWhere>(
  where: W,
  command: CommandRef,
  options: APIApplicationCommandInteractionDataOption[] = [],
  resolved?: APIInteractionDataResolved,
): Built<W, APIChatInputApplicationCommandGuildInteraction, APIChatInputApplicationCommandInteraction> {
  const payload = { ...envelope(where, InteractionType.ApplicationCommand), data: commandData(command, options, resolved) };
  return payload as unknown as Built<W, APIChatInputApplicationCommandGuildInteraction, APIChatInputApplicationCommandInteraction>;
}

export function buildAutocompleteInteraction<W extends InteractionWhere>(
  where: W,
  command: CommandRef,
  options: APIApplicationCommandInteractionDataOption[],
): Built<W, APIApplicationCommandAutocompleteGuildInteraction, APIApplicationCommandAutocompleteInteraction> {
  const payload = { ...envelope(where, InteractionType.ApplicationCommandAutocomplete), data: commandData(command, options) };
  return payload as unknown as Built<W, APIApplicationCommandAutocompleteGuildInteraction, APIApplicationCommandAutocompleteInteraction>;
}

export function buildButtonInteraction<W extends InteractionWhere>(
  where: W,
  message: APIMessage,
  customId: string,
): Built<W, APIMessageComponentGuildInteraction, APIMessageComponentInteraction> {
  const payload = { ...envelope(where, InteractionType.MessageComponent), message, data: { custom_id: customId, component_type: ComponentType.Button } };
  return payload as unknown as Built<W, APIMessageComponentGuildInteraction, APIMessageComponentInteraction>;
}

export function buildSelectInteraction<W extends InteractionWhere>(
  where: W,
  message: APIMessage,
  customId: string,
  componentType: SelectComponentType,
  values: string[],
  resolved?: APIInteractionDataResolved,
): Built<W, APIMessageComponentGuildInteraction, APIMessageComponentInteraction> {
  const data = { custom_id: customId, component_type: componentType, values, ...(resolved ? { resolved } : {}) };
  const payload = { ...envelope(where, InteractionType.MessageComponent), message, data };
  return payload as unknown as Built<W, APIMessageComponentGuildInteraction, APIMessageComponentInteraction>;
}

export function buildModalSubmitInteraction<W extends InteractionWhere>(
  where: W,
  customId: string,
  components: APIModalSubmissionComponent[],
  message?: APIMessage,
  resolved?: APIInteractionDataResolved,
): Built<W, APIModalSubmitGuildInteraction, APIModalSubmitInteraction> {
  const data = { custom_id: customId, components, ...(resolved ? { resolved } : {}) };
  const payload = { ...envelope(where, InteractionType.ModalSubmit), ...(message ? { message } : {}), data };
  return payload as unknown as Built<W, APIModalSubmitGuildInteraction, APIModalSubmitInteraction>;
}

/**
 * A message command (right-click a message → Apps → `command`): type 2 with `data.type` 3, the
 * message's id as `target_id` and the whole message, as the client has it, in `resolved.messages`.
 */
export function buildMessageCommandInteraction<W extends InteractionWhere>(
  where: W,
  command: CommandRef,
  message: APIMessage,
): Built<W, APIMessageApplicationCommandGuildInteraction, APIMessageApplicationCommandInteraction> {
  const data = {
    id: command.id,
    name: command.name,
    type: ApplicationCommandType.Message as const,
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
    target_id: message.id,
    resolved: { messages: { [message.id]: message } },
  };
  const payload = { ...envelope(where, InteractionType.ApplicationCommand), data };
  return payload as unknown as Built<W, APIMessageApplicationCommandGuildInteraction, APIMessageApplicationCommandInteraction>;
}
