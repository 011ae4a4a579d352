/**
 * What the Discord client does with a command's options before sending it: `{ name: value }`
 * plus sub-command names become the option tree of the payload, checked against the command's
 * definition (required, choices, min/max) and with mentioned users, roles and channels resolved.
 */
import {
  ApplicationCommandOptionType,
  type APIApplicationCommand,
  type APIApplicationCommandInteractionDataOption,
  type APIApplicationCommandOption,
  type APIInteractionDataResolved,
} from 'discord-api-types/v10';
import { memberPayload, rolePayload, type NormalizedGuild } from '../guilds.js';

export type OptionInput = string | number | boolean;

export interface CommandInput {
  options?: Record<string, OptionInput> | APIApplicationCommandInteractionDataOption[];
  subcommand?: string;
  subcommandGroup?: string;
  /** Autocomplete: the option the user is typing in. */
  focused?: string;
}

export class InteractionInputError extends Error {
  override name = 'InteractionInputError';
}

function convertValue(def: APIApplicationCommandOption, value: OptionInput, focused: boolean): OptionInput {
  // While typing, Discord sends the raw text of the focused option, whatever its type.
  if (focused) return String(value);
  switch (def.type) {
    case ApplicationCommandOptionType.String: {
      const s = String(value);
      const d = def as { min_length?: number; max_length?: number };
      if (d.min_length !== undefined && s.length < d.min_length) throw new InteractionInputError(`option ${def.name}: shorter than ${d.min_length}`);
      if (d.max_length !== undefined && s.length > d.max_length) throw new InteractionInputError(`option ${def.name}: longer than ${d.max_length}`);
      return s;
    }
    case ApplicationCommandOptionType.Integer:
    case ApplicationCommandOptionType.Number: {
      const n = typeof value === 'number' ? value : Number(value);
      if (!Number.isFinite(n) || (def.type === ApplicationCommandOptionType.Integer && !Number.isInteger(n))) {
        throw new InteractionInputError(`option ${def.name}: ${String(value)} is not a valid ${def.type === ApplicationCommandOptionType.Integer ? 'integer' : 'number'}`);
      }
      const d = def as { min_value?: number; max_value?: number };
      if (d.min_value !== undefined && n < d.min_value) throw new InteractionInputError(`option ${def.name}: below ${d.min_value}`);
      if (d.max_value !== undefined && n > d.max_value) throw new InteractionInputError(`option ${def.name}: above ${d.max_value}`);
      return n;
    }
    case ApplicationCommandOptionType.Boolean:
      return value === true || value === 'true';
    default:
      return String(value);
  }
}

/** Adds the user, role or channel `id` names to `resolved`, as Discord does for mentions and selects. */
export function resolveEntity(guild: NormalizedGuild, type: ApplicationCommandOptionType, id: string, resolved: APIInteractionDataResolved, name: string): void {
  const channel = guild.channels.find((c) => c.id === id);
  const role = guild.roles.find((r) => r.id === id);
  const member = guild.members.find((m) => m.userId === id);
  const wantsUser = type === ApplicationCommandOptionType.User || type === ApplicationCommandOptionType.Mentionable;
  const wantsRole = type === ApplicationCommandOptionType.Role || type === ApplicationCommandOptionType.Mentionable;
  if (type === ApplicationCommandOptionType.Channel && channel) {
    resolved.channels ??= {};
    resolved.channels[id] = { id, name: channel.name, type: channel.type, permissions: '0', parent_id: channel.parentId ?? null } as never;
  } else if (wantsRole && role) {
    resolved.roles ??= {};
    resolved.roles[id] = rolePayload(role) as never;
  } else if (wantsUser && member) {
    resolved.users ??= {};
    resolved.members ??= {};
    const user = { id, username: member.username ?? `user${id.slice(-4)}`, discriminator: '0', global_name: member.globalName ?? null, avatar: null };
    resolved.users[id] = user as never;
    const { user: _user, ...rest } = memberPayload(guild, user as never, member);
    resolved.members[id] = { ...rest, permissions: '0' } as never;
  } else if (type !== ApplicationCommandOptionType.Attachment) {
    throw new InteractionInputError(`option ${name}: ${id} is not a known ${ApplicationCommandOptionType[type]} of guild ${guild.id}`);
  }
}

function buildLeafOptions(
  defs: APIApplicationCommandOption[],
  values: Record<string, OptionInput>,
  focused: string | undefined,
  guild: NormalizedGuild,
  resolved: APIInteractionDataResolved,
): APIApplicationCommandInteractionDataOption[] {
  for (const name of Object.keys(values)) {
    if (!defs.some((d) => d.name === name)) throw new InteractionInputError(`unknown option "${name}"`);
  }
  const out: APIApplicationCommandInteractionDataOption[] = [];
  for (const def of defs) {
    const raw = values[def.name];
    const isFocused = focused === def.name;
    if (raw === undefined) {
      if (def.required && focused === undefined) throw new InteractionInputError(`missing required option "${def.name}"`);
      continue;
    }
    const value = convertValue(def, raw, isFocused);
    const choices = 'choices' in def ? def.choices : undefined;
    if (!isFocused && choices && choices.length > 0 && !choices.some((c) => c.value === value)) {
      throw new InteractionInputError(`option ${def.name}: ${String(value)} is not one of its choices`);
    }
    const entityTypes: ApplicationCommandOptionType[] = [
      ApplicationCommandOptionType.User,
      ApplicationCommandOptionType.Channel,
      ApplicationCommandOptionType.Role,
      ApplicationCommandOptionType.Mentionable,
      ApplicationCommandOptionType.Attachment,
    ];
    if (!isFocused && entityTypes.includes(def.type)) resolveEntity(guild, def.type, String(value), resolved, def.name);
    out.push({ name: def.name, type: def.type, value, ...(isFocused ? { focused: true } : {}) } as APIApplicationCommandInteractionDataOption);
  }
  if (focused !== undefined && !out.some((o) => 'focused' in o && o.focused)) {
    throw new InteractionInputError(`focused option "${focused}" has no value`);
  }
  return out;
}

/** Turns `{ name: value }` plus sub-command names into the option tree Discord sends. */
export function buildCommandOptions(
  command: APIApplicationCommand,
  input: CommandInput,
  guild: NormalizedGuild,
): { options: APIApplicationCommandInteractionDataOption[]; resolved?: APIInteractionDataResolved } {
  if (Array.isArray(input.options)) return { options: input.options };
  const values = input.options ?? {};
  const resolved: APIInteractionDataResolved = {};
  let defs = command.options ?? [];
  let wrap = (leaf: APIApplicationCommandInteractionDataOption[]) => leaf;
  if (input.subcommandGroup !== undefined) {
    const group = defs.find((d) => d.name === input.subcommandGroup && d.type === ApplicationCommandOptionType.SubcommandGroup);
    if (!group || !('options' in group)) throw new InteractionInputError(`unknown sub-command group "${input.subcommandGroup}"`);
    defs = (group.options ?? []) as APIApplicationCommandOption[];
    const outer = wrap;
    wrap = (leaf) => outer([{ name: group.name, type: ApplicationCommandOptionType.SubcommandGroup, options: leaf } as APIApplicationCommandInteractionDataOption]);
  }
  const hasSubcommands = defs.some((d) => d.type === ApplicationCommandOptionType.Subcommand);
  if (input.subcommand !== undefined || hasSubcommands) {
    const sub = defs.find((d) => d.name === input.subcommand && d.type === ApplicationCommandOptionType.Subcommand);
    if (!sub || !('options' in sub)) throw new InteractionInputError(`unknown or missing sub-command "${input.subcommand ?? ''}"`);
    defs = (sub.options ?? []) as APIApplicationCommandOption[];
    const outer = wrap;
    wrap = (leaf) => outer([{ name: sub.name, type: ApplicationCommandOptionType.Subcommand, options: leaf } as APIApplicationCommandInteractionDataOption]);
  }
  const leaf = buildLeafOptions(defs, values, input.focused, guild, resolved);
  const hasResolved = Object.keys(resolved).length > 0;
  return { options: wrap(leaf), ...(hasResolved ? { resolved } : {}) };
}
