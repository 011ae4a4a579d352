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
import type { NormalizedGuild } from '../guilds.js';
import { InteractionInputError, type AttachmentSource, type AttachmentUpload, type OptionInput } from './input.js';
import { resolveAttachment, resolveEntity, type Viewer } from './resolved.js';

export { InteractionInputError, type AttachmentSource, type AttachmentUpload, type OptionInput } from './input.js';
export { resolveEntity, type Viewer } from './resolved.js';

/** What resolving a command's options may draw on: uploaded files, and where the interaction happens. */
export interface ResolveContext {
  attachments?: AttachmentSource;
  viewer?: Viewer;
}

export interface CommandInput {
  /** Attachment options take the id of an uploaded attachment, or an `AttachmentUpload`. */
  options?: Record<string, OptionInput | AttachmentUpload> | APIApplicationCommandInteractionDataOption[];
  subcommand?: string;
  subcommandGroup?: string;
  /** Autocomplete: the option the user is typing in. */
  focused?: string;
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

function buildLeafOptions(
  defs: APIApplicationCommandOption[],
  values: Record<string, OptionInput | AttachmentUpload>,
  focused: string | undefined,
  guild: NormalizedGuild,
  resolved: APIInteractionDataResolved,
  context: ResolveContext,
): APIApplicationCommandInteractionDataOption[] {
  const attachments = context.attachments;
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
    if (def.type === ApplicationCommandOptionType.Attachment && attachments && !isFocused) {
      out.push({ name: def.name, type: def.type, value: resolveAttachment(def, raw, attachments, resolved) } as APIApplicationCommandInteractionDataOption);
      continue;
    }
    if (typeof raw === 'object') throw new InteractionInputError(`option ${def.name}: a file is only taken by an attachment option`);
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
    if (!isFocused && entityTypes.includes(def.type)) resolveEntity(guild, def.type, String(value), resolved, def.name, context.viewer);
    out.push({ name: def.name, type: def.type, value, ...(isFocused ? { focused: true } : {}) } as APIApplicationCommandInteractionDataOption);
  }
  if (focused !== undefined && !out.some((o) => 'focused' in o && o.focused)) {
    throw new InteractionInputError(`focused option "${focused}" has no value`);
  }
  return out;
}

/**
 * Turns `{ name: value }` plus sub-command names into the option tree Discord sends. Attachment
 * options are resolved (`resolved.attachments`) from `context.attachments` when given; resolved
 * channels and members carry permissions as seen from `context.viewer` ('0' without one).
 */
export function buildCommandOptions(
  command: APIApplicationCommand,
  input: CommandInput,
  guild: NormalizedGuild,
  context: ResolveContext = {},
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
  const leaf = buildLeafOptions(defs, values, input.focused, guild, resolved, context);
  const hasResolved = Object.keys(resolved).length > 0;
  return { options: wrap(leaf), ...(hasResolved ? { resolved } : {}) };
}
