/**
 * The shape of a command in commands/: its builder, and a declaration for each thing it answers
 * (subcommands, buttons, selects, modals, a message's context menu): the handler, how the answer
 * is sent, and the preconditions the router checks before the handler runs.
 */
import {
  ComponentType,
  type AnySelectMenuInteraction,
  type AutocompleteInteraction,
  type ButtonInteraction,
  ChannelSelectMenuInteraction,
  type ChatInputCommandInteraction,
  type MessageContextMenuCommandInteraction,
  type ModalSubmitInteraction,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type RESTPostAPIContextMenuApplicationCommandsJSONBody,
  type SlashCommandSubcommandGroupBuilder,
  RoleSelectMenuInteraction,
  type StringSelectMenuInteraction,
} from 'discord.js';
import type { MessageKey } from '../i18n/index.js';
import type { HandlerContext } from './context.js';
import type { CustomIdCodec } from './custom-id.js';
import { MalformedInteractionError, UserError, type GuardedAction } from './errors.js';

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

/**
 * How an interaction is answered. `reply`: a new message (deferral: "thinking…", type 5).
 * `update`: the message the component is on is edited in place (type 7; deferral: type 6), for
 * buttons, selects and modals opened from a message. `modal`: the handler always answers with
 * `ctx.respond.showModal()` (type 9); a modal must be the first answer, so nothing is deferred.
 * A `reply` or `update` handler may still show a modal, as long as it does so before its first
 * await that can take time (the deferral comes after deferAfterMs, 1.5 s).
 */
export type AnswerMode = 'reply' | 'update' | 'modal';

/** A subcommand, or a command without subcommands. */
export interface SlashDeclaration extends Preconditions {
  /** Whether the successful answer is private (fixed up front: it decides how a deferral is sent). */
  ephemeral: boolean;
  /** `reply` (default), or `modal` when the subcommand always opens a modal. */
  answer?: 'reply' | 'modal';
  run(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void>;
}

/** A subcommand group: its builder and its subcommands' declarations by subcommand name (the router looks them up as `group subcommand`). */
export interface SubcommandGroup {
  name: string;
  build(group: SlashCommandSubcommandGroupBuilder): SlashCommandSubcommandGroupBuilder;
  subcommands: Readonly<Record<string, SlashDeclaration>>;
}

/** A button, select or modal whose custom_id `id` writes and reads; `run` gets what the id carries. */
interface ComponentDeclaration<I, S> extends Preconditions {
  id: CustomIdCodec<S>;
  /** `update` replaces the message the component is on; `reply` sends a new message; `modal` opens one. */
  answer: AnswerMode;
  ephemeral: boolean;
  /**
   * Only the user whose id the custom_id carries (as `userId`) may use it. Anyone else is refused
   * with `button.notYours`, or with the catalogue key given here when the refusal says more.
   */
  invokerOnly?: S extends { userId: string } ? true | MessageKey : never;
  run(interaction: I, ctx: HandlerContext, state: S): Promise<void>;
}

/**
 * A component with its state type erased, for the router's table: `bind` decodes the custom_id
 * and returns the handler for it, or undefined when the id does not decode.
 */
export interface ComponentRoute<I> extends Preconditions {
  prefix: string;
  answer: AnswerMode;
  ephemeral: boolean;
  bind(interaction: I): ((ctx: HandlerContext) => Promise<void>) | undefined;
}

type Component = { customId: string; user: { id: string } };

function component<I extends Component, S>(declaration: ComponentDeclaration<I, S>, accepts: (i: I) => boolean = () => true): ComponentRoute<I> {
  const { id, run, invokerOnly, ...how } = declaration;
  return {
    ...how,
    prefix: id.prefix,
    bind(interaction) {
      // A select of another type under this id is not one this version sent: read as expired.
      if (!accepts(interaction)) return undefined;
      const state = id.decode(interaction.customId);
      if (state === undefined) return undefined;
      return async (ctx) => {
        if (invokerOnly && (state as { userId?: string }).userId !== interaction.user.id) {
          throw new UserError(invokerOnly === true ? 'button.notYours' : invokerOnly);
        }
        if (!resolvedEveryValue(interaction)) throw new MalformedInteractionError();
        await run(interaction, ctx, state);
      };
    },
  };
}

/**
 * A role or channel select's values are exactly the ids Discord resolved. discord.js reads the
 * choice from the resolved data alone: values without it would read as "nothing chosen" (every
 * manager role cleared), a resolved entry without its value as a choice nobody made.
 */
function resolvedEveryValue(interaction: unknown): boolean {
  const picked = interaction instanceof RoleSelectMenuInteraction ? interaction.roles : interaction instanceof ChannelSelectMenuInteraction ? interaction.channels : undefined;
  if (!picked) return true;
  const values = (interaction as AnySelectMenuInteraction).values;
  return Array.isArray(values) && values.length === picked.size && values.every((id) => picked.has(id));
}

export const button: <S>(d: ComponentDeclaration<ButtonInteraction, S>) => ComponentRoute<ButtonInteraction> = component;
export const modal: <S>(d: ComponentDeclaration<ModalSubmitInteraction, S>) => ComponentRoute<ModalSubmitInteraction> = component;

/** A select of one component type; its handler gets that type's interaction (values, resolved channels/roles…). */
function selectOf<I extends AnySelectMenuInteraction>(type: I['componentType']) {
  return <S>(d: ComponentDeclaration<I, S>): ComponentRoute<AnySelectMenuInteraction> =>
    component(d, (i) => i.componentType === type) as unknown as ComponentRoute<AnySelectMenuInteraction>;
}

/**
 * Selects in messages (string 3, role 6, channel 8), routed by custom_id like buttons. User and
 * mentionable selects (5, 7) get theirs the same way, selectOf(), when a command first needs one.
 */
export const stringSelect = selectOf<StringSelectMenuInteraction>(ComponentType.StringSelect);
export const roleSelect = selectOf<RoleSelectMenuInteraction>(ComponentType.RoleSelect);
export const channelSelect = selectOf<ChannelSelectMenuInteraction>(ComponentType.ChannelSelect);

interface CommandBase {
  data: { name: string; toJSON(): RESTPostAPIChatInputApplicationCommandsJSONBody };
  autocomplete?(interaction: AutocompleteInteraction, ctx: HandlerContext): Promise<void>;
  buttons?: readonly ComponentRoute<ButtonInteraction>[];
  selects?: readonly ComponentRoute<AnySelectMenuInteraction>[];
  modals?: readonly ComponentRoute<ModalSubmitInteraction>[];
  /** Releases what the command holds (timers) when the bot stops. */
  dispose?(): void;
}

/** A slash command: it declares either one handler, or one per subcommand name. */
export type CommandModule = CommandBase &
  ({ command: SlashDeclaration; subcommands?: never } | { subcommands: Readonly<Record<string, SlashDeclaration>>; command?: never });

/** A message command (type 3: a message's "Apps" menu). Discord sends no options, only the message. */
interface MessageCommandDeclaration extends Preconditions {
  type: 'message';
  ephemeral: boolean;
  /** `reply` (default), or `modal` when it always opens a modal. */
  answer?: 'reply' | 'modal';
  /** `interaction.targetMessage` is the message right-clicked (from `data.resolved.messages`). */
  run(interaction: MessageContextMenuCommandInteraction, ctx: HandlerContext): Promise<void>;
}

/**
 * A context-menu command: `data` from ContextMenuCommandBuilder, its name localized with
 * localizeContextMenu() (src/i18n/localize.ts). Its name may hold spaces and capitals and lives
 * apart from slash names; its components, if any, belong to a slash command's module (custom_ids
 * name a slash command).
 */
export interface ContextMenuModule {
  data: { name: string; toJSON(): RESTPostAPIContextMenuApplicationCommandsJSONBody };
  contextMenu: MessageCommandDeclaration;
  dispose?(): void;
  command?: never;
  subcommands?: never;
}

/** Everything deployed and routed: slash commands and context-menu commands. */
export type AppCommand = CommandModule | ContextMenuModule;

export function isContextMenu(c: AppCommand): c is ContextMenuModule {
  return 'contextMenu' in c && c.contextMenu !== undefined;
}

export function isSlashCommand(c: AppCommand): c is CommandModule {
  return !isContextMenu(c);
}
