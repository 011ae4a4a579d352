/**
 * The shape of a command file in commands/: its builder, its handlers, and what its answers are.
 */
import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { HandlerContext } from './context.js';

export interface CommandModule {
  data: { name: string; toJSON(): RESTPostAPIChatInputApplicationCommandsJSONBody };
  /** Whether the successful answer to this chat-input interaction is ephemeral. */
  ephemeral(interaction: ChatInputCommandInteraction): boolean;
  execute(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, ctx: HandlerContext): Promise<void>;
  /** Buttons whose custom_id starts with `<command name>:`. */
  button?(interaction: ButtonInteraction, ctx: HandlerContext): Promise<void>;
  /** Whether a button's answer replaces the message it is on (`update`) or is a new reply. */
  buttonMode?(interaction: ButtonInteraction): 'update' | 'reply';
  /** Modal submits whose custom_id starts with `<command name>:`. */
  modal?(interaction: ModalSubmitInteraction, ctx: HandlerContext): Promise<void>;
}

/** custom_ids are `<command>:<action>:<args…>`; the first part routes the interaction. */
export function customIdCommand(customId: string): string {
  return customId.split(':', 1)[0] ?? '';
}
