/**
 * Which declaration answers an interaction, and how its answer is sent. The subcommand is read
 * once and a component's custom_id is decoded once, here; the handler a route carries checks the
 * declared preconditions before it runs anything.
 */
import type { AnySelectMenuInteraction, ButtonInteraction, Interaction, ModalSubmitInteraction } from 'discord.js';
import { isContextMenu, isSlashCommand, type AnswerMode, type AppCommand, type CommandModule, type ComponentRoute, type ContextMenuModule, type Preconditions } from './command.js';
import type { HandlerContext } from './context.js';
import { customIdCommand, customIdPrefix } from './custom-id.js';
import { ExpiredComponentError } from './errors.js';
import { checkPreconditions } from './preconditions.js';
import type { RepliableInteraction } from './responder.js';

type Handler = (ctx: HandlerContext) => Promise<void>;

interface Route {
  interaction: RepliableInteraction;
  /** For the log line: `feed list`, `button feed:delete`, `select feed:manage`, `modal apikey:set`, `message Feed of this post`. */
  label: string;
  mode: AnswerMode;
  ephemeral: boolean;
  /** Absent when no command claims the interaction. */
  handler: Handler | undefined;
}

type ComponentKind = 'button' | 'select' | 'modal';

export interface RouteTable {
  /** Slash commands by name. */
  commands: ReadonlyMap<string, CommandModule>;
  /** Message (context-menu) commands by name: a namespace apart from slash names. */
  messageCommands: ReadonlyMap<string, ContextMenuModule>;
  /** Components by `<command>:<action>`. */
  buttons: ReadonlyMap<string, ComponentRoute<ButtonInteraction>>;
  selects: ReadonlyMap<string, ComponentRoute<AnySelectMenuInteraction>>;
  modals: ReadonlyMap<string, ComponentRoute<ModalSubmitInteraction>>;
}

export function routeTable(all: readonly AppCommand[]): RouteTable {
  const commands = all.filter(isSlashCommand);
  const byPrefix = <I>(pick: (c: CommandModule) => readonly ComponentRoute<I>[] | undefined) => {
    const map = new Map<string, ComponentRoute<I>>();
    for (const command of commands) {
      for (const route of pick(command) ?? []) {
        // A custom_id names its command first: that is how a stale one is told from a foreign one.
        if (customIdCommand(route.prefix) !== command.data.name) throw new Error(`${route.prefix} does not start with ${command.data.name}:`);
        if (map.has(route.prefix)) throw new Error(`Two components claim ${route.prefix}`);
        map.set(route.prefix, route);
      }
    }
    return map;
  };
  const messageCommands = new Map<string, ContextMenuModule>();
  for (const c of all.filter(isContextMenu)) {
    if (messageCommands.has(c.data.name)) throw new Error(`Two message commands are named ${c.data.name}`);
    messageCommands.set(c.data.name, c);
  }
  return {
    commands: new Map(commands.map((c) => [c.data.name, c])),
    messageCommands,
    buttons: byPrefix((c) => c.buttons),
    selects: byPrefix((c) => c.selects),
    modals: byPrefix((c) => c.modals),
  };
}

function guarded(declared: Preconditions, run: Handler): Handler {
  return async (ctx) => {
    await checkPreconditions(declared, ctx);
    await run(ctx);
  };
}

const expired: Handler = () => Promise.reject(new ExpiredComponentError());

/** Which command handles an answerable interaction, and how its answer is sent. */
export function routeFor(interaction: Interaction, table: RouteTable): Route | undefined {
  if (interaction.isChatInputCommand()) {
    const command = table.commands.get(interaction.commandName);
    const group = interaction.options.getSubcommandGroup(false);
    const subName = interaction.options.getSubcommand(false);
    // A grouped subcommand is declared as `group subcommand` (/feedbot audit-channel set).
    const sub = subName && group ? `${group} ${subName}` : subName;
    const subcommands = command?.subcommands;
    const declaration = sub ? (subcommands && Object.hasOwn(subcommands, sub) ? subcommands[sub] : undefined) : command?.command;
    return {
      interaction,
      label: sub ? `${interaction.commandName} ${sub}` : interaction.commandName,
      mode: declaration?.answer ?? 'reply',
      ephemeral: declaration?.ephemeral ?? true,
      handler: declaration && guarded(declaration, (ctx) => declaration.run(interaction, ctx)),
    };
  }
  if (interaction.isMessageContextMenuCommand()) {
    const declaration = table.messageCommands.get(interaction.commandName)?.contextMenu;
    return {
      interaction,
      label: `message ${interaction.commandName}`,
      mode: declaration?.answer ?? 'reply',
      ephemeral: declaration?.ephemeral ?? true,
      handler: declaration && guarded(declaration, (ctx) => declaration.run(interaction, ctx)),
    };
  }
  if (interaction.isButton()) return componentRoute(interaction, 'button', table.buttons.get(customIdPrefix(interaction.customId)), table, 'update');
  if (interaction.isAnySelectMenu()) return componentRoute(interaction, 'select', table.selects.get(customIdPrefix(interaction.customId)), table, 'update');
  if (interaction.isModalSubmit()) return componentRoute(interaction, 'modal', table.modals.get(customIdPrefix(interaction.customId)), table, 'reply');
  return undefined;
}

function componentRoute<I extends ButtonInteraction | AnySelectMenuInteraction | ModalSubmitInteraction>(
  interaction: I,
  kind: ComponentKind,
  route: ComponentRoute<I> | undefined,
  table: RouteTable,
  defaultMode: 'update' | 'reply',
): Route {
  const label = `${kind} ${customIdPrefix(interaction.customId)}`;
  if (!route) {
    // A known command's unknown action is a component from an older version: expired.
    const known = table.commands.has(customIdCommand(interaction.customId));
    return { interaction, label, mode: defaultMode, ephemeral: true, handler: known ? expired : undefined };
  }
  const bound = route.bind(interaction);
  // An expired id is explained, never answered with the modal its route would have shown.
  const mode = !bound && route.answer === 'modal' ? defaultMode : route.answer;
  return { interaction, label, mode, ephemeral: route.ephemeral, handler: bound ? guarded(route, bound) : expired };
}
