/**
 * Builders for raw INTERACTION_CREATE payloads, shaped like what Discord sends for a guild
 * interaction (discord-api-types v10). Usable on their own, e.g. with
 * `client.actions.InteractionCreate.handle(raw)` in unit tests.
 */
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ComponentType,
  InteractionContextType,
  InteractionType,
  type APIApplicationCommand,
  type APIApplicationCommandAutocompleteGuildInteraction,
  type APIApplicationCommandInteractionDataOption,
  type APIApplicationCommandOption,
  type APIChatInputApplicationCommandGuildInteraction,
  type APIInteractionDataResolved,
  type APIMessage,
  type APIMessageComponentGuildInteraction,
  type APIModalInteractionResponseCallbackData,
  type APIModalSubmissionComponent,
  type APIModalSubmitGuildInteraction,
  type APIUser,
  type Locale,
} from 'discord-api-types/v10';
import { channelPayload, memberPayload, rolePayload, type NormalizedGuild } from './guilds.js';
import { interactionToken, snowflake } from './snowflake.js';
import type { EmulatedChannel } from './types.js';

/** Who interacts, where. */
export interface InteractionContext {
  applicationId: string;
  guild: NormalizedGuild;
  channel: EmulatedChannel;
  user: APIUser;
  memberRoles: string[];
  nick?: string | null;
  /** The member's permissions in the channel, decimal string. */
  permissions: string;
  locale: Locale | string;
  /** The bot's permissions in the channel, decimal string. */
  appPermissions: string;
}

/** Discord's default upload limit for servers without boosts. */
const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

function base<T extends InteractionType>(ctx: InteractionContext, type: T) {
  const id = snowflake();
  const member = { ...memberPayload(ctx.guild, ctx.user, { nick: ctx.nick ?? undefined, roles: ctx.memberRoles }), permissions: ctx.permissions };
  return {
    id,
    application_id: ctx.applicationId,
    type,
    token: interactionToken(id),
    version: 1 as const,
    guild: { id: ctx.guild.id, locale: ctx.guild.locale, features: [] },
    guild_id: ctx.guild.id,
    guild_locale: ctx.guild.locale,
    channel: channelPayload(ctx.guild, ctx.channel),
    channel_id: ctx.channel.id,
    member,
    app_permissions: ctx.appPermissions,
    locale: ctx.locale,
    entitlements: [],
    authorizing_integration_owners: { '0': ctx.guild.id },
    context: InteractionContextType.Guild,
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
}

function commandData(command: APIApplicationCommand, options: APIApplicationCommandInteractionDataOption[], resolved?: APIInteractionDataResolved) {
  return {
    id: command.id,
    name: command.name,
    type: ApplicationCommandType.ChatInput as const,
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
    ...(options.length > 0 ? { options } : {}),
    ...(resolved ? { resolved } : {}),
  };
}

export function buildChatInputInteraction(
  ctx: InteractionContext,
  command: APIApplicationCommand,
  options: APIApplicationCommandInteractionDataOption[] = [],
  resolved?: APIInteractionDataResolved,
): APIChatInputApplicationCommandGuildInteraction {
  return { ...base(ctx, InteractionType.ApplicationCommand), data: commandData(command, options, resolved) } as unknown as APIChatInputApplicationCommandGuildInteraction;
}

export function buildAutocompleteInteraction(
  ctx: InteractionContext,
  command: APIApplicationCommand,
  options: APIApplicationCommandInteractionDataOption[],
): APIApplicationCommandAutocompleteGuildInteraction {
  return {
    ...base(ctx, InteractionType.ApplicationCommandAutocomplete),
    data: commandData(command, options),
  } as unknown as APIApplicationCommandAutocompleteGuildInteraction;
}

export function buildButtonInteraction(ctx: InteractionContext, message: APIMessage, customId: string): APIMessageComponentGuildInteraction {
  return {
    ...base(ctx, InteractionType.MessageComponent),
    message,
    data: { custom_id: customId, component_type: ComponentType.Button },
  } as unknown as APIMessageComponentGuildInteraction;
}

export function buildSelectInteraction(
  ctx: InteractionContext,
  message: APIMessage,
  customId: string,
  componentType: ComponentType.StringSelect | ComponentType.UserSelect | ComponentType.RoleSelect | ComponentType.MentionableSelect | ComponentType.ChannelSelect,
  values: string[],
  resolved?: APIInteractionDataResolved,
): APIMessageComponentGuildInteraction {
  return {
    ...base(ctx, InteractionType.MessageComponent),
    message,
    data: { custom_id: customId, component_type: componentType, values, ...(resolved ? { resolved } : {}) },
  } as unknown as APIMessageComponentGuildInteraction;
}

export function buildModalSubmitInteraction(
  ctx: InteractionContext,
  customId: string,
  components: APIModalSubmissionComponent[],
  message?: APIMessage,
): APIModalSubmitGuildInteraction {
  return {
    ...base(ctx, InteractionType.ModalSubmit),
    ...(message ? { message } : {}),
    data: { custom_id: customId, components },
  } as unknown as APIModalSubmitGuildInteraction;
}

// ---------------------------------------------------------------------------------------------
// High-level input → API options

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

function resolveEntity(guild: NormalizedGuild, type: ApplicationCommandOptionType, id: string, resolved: APIInteractionDataResolved, name: string): void {
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

// ---------------------------------------------------------------------------------------------
// Modal → submission

export type ModalValues = Record<string, string | string[]>;

/** What the Discord client sends back for a modal: the same layout, with the user's values. */
export function buildModalSubmission(modal: APIModalInteractionResponseCallbackData, values: ModalValues): APIModalSubmissionComponent[] {
  const known = new Set<string>();
  let nextId = 1;
  const submitField = (component: Record<string, unknown>): Record<string, unknown> => {
    const customId = String(component.custom_id ?? '');
    known.add(customId);
    const given = values[customId];
    if (component.type === ComponentType.TextInput) {
      const value = Array.isArray(given) ? given.join('\n') : (given ?? (typeof component.value === 'string' ? component.value : ''));
      const required = component.required !== false;
      if (required && value === '') throw new InteractionInputError(`text input "${customId}" is required`);
      const min = typeof component.min_length === 'number' ? component.min_length : 0;
      const max = typeof component.max_length === 'number' ? component.max_length : 4000;
      if (value !== '' && (value.length < min || value.length > max)) {
        throw new InteractionInputError(`text input "${customId}" must be ${min}–${max} characters`);
      }
      return { type: ComponentType.TextInput, id: (component.id as number | undefined) ?? nextId++, custom_id: customId, value };
    }
    const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
    return { type: component.type, id: (component.id as number | undefined) ?? nextId++, custom_id: customId, values: list };
  };
  const out = (modal.components as unknown as Record<string, unknown>[]).map((top) => {
    const id = (top.id as number | undefined) ?? nextId++;
    if (top.type === ComponentType.Label) {
      return { type: ComponentType.Label, id, component: submitField(top.component as Record<string, unknown>) };
    }
    if (top.type === ComponentType.ActionRow) {
      return { type: ComponentType.ActionRow, id, components: (top.components as Record<string, unknown>[]).map(submitField) };
    }
    return { type: top.type, id };
  });
  for (const key of Object.keys(values)) {
    if (!known.has(key)) throw new InteractionInputError(`the modal has no field "${key}"`);
  }
  return out as unknown as APIModalSubmissionComponent[];
}
