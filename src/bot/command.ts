/**
 * The shape of a command in commands/: its builder, and a declaration for each thing it answers
 * (subcommands, buttons, modals): the handler, how the answer is sent, and the preconditions the
 * router checks before the handler runs.
 */
import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { HandlerContext } from './context.js';
import type { CustomIdCodec } from './custom-id.js';
import { UserError, type GuardedAction } from './errors.js';

/** What must hold before a handler runs (Sapphire calls these preconditions). */
export interface Preconditions {
  /** Refused outside a server. */
  guildOnly?: boolean;
  /**
   * A member permission checked at run time, whatever the command's default permissions say;
   * `action` names what was refused in the explanation. `ManageFeeds`: Manage Server, or one of
   * the guild's feed-manager roles (`/feedbot managers`).
   */
  requires?: { permission: 'ManageGuild' | 'ManageFeeds'; action: GuardedAction };
}

/** A subcommand, or a command without subcommands. */
export interface SlashDeclaration extends Preconditions {
  /** Whether the successful answer is private (fixed up front: it decides how a deferral is sent). */
  ephemeral: boolean;
  run(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void>;
}

/** A button or modal whose custom_id `id` writes and reads; `run` gets what the id carries. */
export interface ComponentDeclaration<I, S> extends Preconditions {
  id: CustomIdCodec<S>;
  /** `update` replaces the message the button is on; `reply` sends a new message. */
  answer: 'update' | 'reply';
  ephemeral: boolean;
  /** Only the user whose id the custom_id carries (as `userId`) may use it. */
  invokerOnly?: S extends { userId: string } ? boolean : never;
  run(interaction: I, ctx: HandlerContext, state: S): Promise<void>;
}

/**
 * A component with its state type erased, for the router's table: `bind` decodes the custom_id
 * and returns the handler for it, or undefined when the id does not decode.
 */
export interface ComponentRoute<I> extends Preconditions {
  prefix: string;
  answer: 'update' | 'reply';
  ephemeral: boolean;
  bind(interaction: I): ((ctx: HandlerContext) => Promise<void>) | undefined;
}

function component<I extends { customId: string; user: { id: string } }, S>(declaration: ComponentDeclaration<I, S>): ComponentRoute<I> {
  const { id, run, invokerOnly, ...how } = declaration;
  return {
    ...how,
    prefix: id.prefix,
    bind(interaction) {
      const state = id.decode(interaction.customId);
      if (state === undefined) return undefined;
      return async (ctx) => {
        if (invokerOnly && (state as { userId?: string }).userId !== interaction.user.id) throw new UserError('button.notYours');
        await run(interaction, ctx, state);
      };
    },
  };
}

export const button: <S>(d: ComponentDeclaration<ButtonInteraction, S>) => ComponentRoute<ButtonInteraction> = component;
export const modal: <S>(d: ComponentDeclaration<ModalSubmitInteraction, S>) => ComponentRoute<ModalSubmitInteraction> = component;

interface CommandBase {
  data: { name: string; toJSON(): RESTPostAPIChatInputApplicationCommandsJSONBody };
  autocomplete?(interaction: AutocompleteInteraction, ctx: HandlerContext): Promise<void>;
  buttons?: readonly ComponentRoute<ButtonInteraction>[];
  modals?: readonly ComponentRoute<ModalSubmitInteraction>[];
  /** Releases what the command holds (timers) when the bot stops. */
  dispose?(): void;
}

/** A command declares either one handler, or one per subcommand name. */
export type CommandModule = CommandBase &
  ({ command: SlashDeclaration; subcommands?: never } | { subcommands: Readonly<Record<string, SlashDeclaration>>; command?: never });
