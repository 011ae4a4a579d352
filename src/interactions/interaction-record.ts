/**
 * What the router knows once an interaction is finished, as one record: the interaction's log
 * line is written from it and observers (metrics) receive it, so both always agree.
 *
 * `command` and `subcommand` come from the route table, never from the payload as sent: a client
 * can put anything in a custom_id or a command name, and metrics labels must stay bounded.
 */
import type { Interaction } from 'discord.js';
import type { Listener } from '../observers.js';
import { customIdCommand, customIdPrefix } from './custom-id.js';
import type { DiscordRefusal, FailureDetail } from './explain.js';
import type { RouteTable } from './routes.js';

type InteractionKind = 'command' | 'message_command' | 'autocomplete' | 'button' | 'select' | 'modal' | 'other';

/** The label for a name the route table does not know. */
const UNKNOWN = 'unknown';
/** The subcommand label of a command without subcommands. */
const NONE = 'none';

export interface InteractionRecord {
  interactionId: string;
  guildId: string | null;
  userId: string;
  kind: InteractionKind;
  /** A command name from the route table (a message command's too), or `unknown`. */
  command: string;
  /** A declared subcommand or component action, `none`, or `unknown`. */
  subcommand: string;
  /** For the log line: `feed list`, `button feed:delete`, `feed (autocomplete)`; absent when not ours. */
  label: string | undefined;
  /**
   * `ok`, `unknown_command`, or an explanation's outcome (`user_error`, `api_401`…);
   * `discord_error` when Discord refused or failed the answer itself, appended (`api_timeout+discord_error`)
   * when it refused the explanation of another failure.
   */
  outcome: string;
  level: 'info' | 'warn' | 'error';
  /** The last HTTP status the feed API answered for this interaction; null when none did. */
  upstreamStatus: number | null;
  /** From receipt to the end of the final answer (or failure). */
  latencyMs: number;
  /** From receipt to the acknowledgement (reply, deferral, modal, autocomplete choices); null when none left. */
  ackLatencyMs: number | null;
  deferred: boolean;
  /** No acknowledgement within 3 s of Discord creating the interaction (it then answers 10062). */
  missedDeadline: boolean;
  /** The reference the user read; absent when no explanation with one reached them. */
  ref?: string;
  error?: unknown;
  /** What Discord answered when it refused or failed a call of this interaction. */
  discord?: DiscordRefusal;
  /** Why the feed API could not be reached (system code, time-out), whatever the level. */
  detail?: FailureDetail;
}

export type InteractionListener = Listener<InteractionRecord>;

/** Kind, command and subcommand of an interaction, bounded by the route table. */
export function interactionLabels(interaction: Interaction, table: RouteTable): Pick<InteractionRecord, 'kind' | 'command' | 'subcommand'> {
  if (interaction.isChatInputCommand() || interaction.isAutocomplete()) {
    const kind = interaction.isAutocomplete() ? 'autocomplete' : 'command';
    const declared = table.commands.get(interaction.commandName);
    if (!declared) return { kind, command: UNKNOWN, subcommand: UNKNOWN };
    const sub = interaction.options.getSubcommand(false);
    const subs = declared.subcommands;
    const subcommand = sub === null ? NONE : subs && Object.hasOwn(subs, sub) ? sub : UNKNOWN;
    return { kind, command: declared.data.name, subcommand };
  }
  if (interaction.isMessageContextMenuCommand()) {
    const declared = table.messageCommands.get(interaction.commandName);
    return { kind: 'message_command', command: declared ? declared.data.name : UNKNOWN, subcommand: declared ? NONE : UNKNOWN };
  }
  if (interaction.isButton() || interaction.isAnySelectMenu() || interaction.isModalSubmit()) {
    const kind = interaction.isButton() ? 'button' : interaction.isAnySelectMenu() ? 'select' : 'modal';
    const routes: ReadonlyMap<string, unknown> = table[`${kind}s`];
    const prefix = customIdPrefix(interaction.customId);
    const command = customIdCommand(interaction.customId);
    if (!table.commands.has(command)) return { kind, command: UNKNOWN, subcommand: UNKNOWN };
    return { kind, command, subcommand: routes.has(prefix) ? prefix.slice(command.length + 1) : UNKNOWN };
  }
  return { kind: 'other', command: UNKNOWN, subcommand: UNKNOWN };
}

/** The interaction's one log line (the keys existing log queries rely on, and nothing secret). */
export function logEntry(r: InteractionRecord): Record<string, unknown> {
  return {
    interactionId: r.interactionId,
    guild: r.guildId,
    user: r.userId,
    ...(r.label !== undefined ? { command: r.label } : {}),
    ...(r.deferred ? { deferred: true } : {}),
    outcome: r.outcome,
    upstreamStatus: r.upstreamStatus,
    latencyMs: Math.round(r.latencyMs),
    ...(r.ackLatencyMs !== null ? { ackMs: Math.round(r.ackLatencyMs) } : {}),
    ...(r.missedDeadline ? { missedDeadline: true } : {}),
    ...(r.ref ? { ref: r.ref } : {}),
    ...(r.detail?.cause !== undefined ? { cause: r.detail.cause } : {}),
    ...(r.detail?.timeoutMs !== undefined ? { timeoutMs: r.detail.timeoutMs } : {}),
    ...(r.discord ? { discordStatus: r.discord.status, ...(r.discord.code !== undefined ? { discordCode: r.discord.code } : {}) } : {}),
    ...(r.error ? { err: r.error } : {}),
  };
}
