/**
 * Real discord.js objects without Discord: the bot's own client with its REST calls recorded by
 * the emulator package's RestRecorder, and interactions built from raw payloads by the package's
 * builders, bound to this suite's ids.
 */
import {
  ApplicationCommandType,
  ChannelType,
  ComponentType,
  type APIInteraction,
  type APIInteractionDataResolved,
  type APIInteractionDataResolvedChannel,
  type APIMessage,
  type APIMessageApplicationCommandInteraction,
  type APIMessageComponentSelectMenuInteraction,
  type APIModalSubmitInteraction,
  type APIRole,
} from 'discord-api-types/v10';
import { Events, PermissionFlagsBits, type Client, type ClientOptions, type Interaction } from 'discord.js';
import { dispatchInteraction, fakeMessage as webhookMessage, interactionPayloads, RestRecorder, type RecordedRequest } from '@feedbot/discord-emulator/testing';
import { createDiscordClient } from '../../src/bot/discord-client.js';

import { snowflake, type Invoker } from '@feedbot/discord-emulator/testing';

export { snowflake, type Invoker, type OptionValue } from '@feedbot/discord-emulator/testing';

export const APP_ID = '1200000000000000001';
export const GUILD_ID = '1100000000000000001';
export const OTHER_GUILD_ID = '1100000000000000002';
export const CHANNEL_ID = '1300000000000000001';
export const ADMIN_ID = '1400000000000000001';
export const MEMBER_ID = '1400000000000000002';

export const ADMIN_PERMS = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.SendMessages);
export const MEMBER_PERMS = String(PermissionFlagsBits.SendMessages | PermissionFlagsBits.ViewChannel);
export const ADMINISTRATOR_PERMS = String(PermissionFlagsBits.Administrator);

/** One REST call of the bot: method, path after /api/v10 (@original decoded), query, body, Date.now(). */
export type CapturedCall = RecordedRequest;

/** Raw payloads from ADMIN_ID in GUILD_ID's #general, in English, unless the invoker says otherwise. */
export const { chatInput, autocomplete, buttonPress, modalSubmit } = interactionPayloads({
  applicationId: APP_ID,
  guildId: GUILD_ID,
  channel: { id: CHANNEL_ID, name: 'general' },
  userId: ADMIN_ID,
  permissions: ADMIN_PERMS,
});

/** A channel as a select or a modal's channel select resolves it. */
export interface ChannelRef {
  id: string;
  name: string;
  type?: ChannelType;
}

/** A role as a role select resolves it. */
export interface RoleRef {
  id: string;
  name: string;
}

function resolvedChannels(channels: readonly ChannelRef[]): NonNullable<APIInteractionDataResolved['channels']> {
  return Object.fromEntries(
    channels.map(({ id, name, type = ChannelType.GuildText }) => [id, { id, name, type, permissions: '0' } as APIInteractionDataResolvedChannel]),
  );
}

function resolvedRoles(roles: readonly RoleRef[]): Record<string, APIRole> {
  return Object.fromEntries(
    roles.map(({ id, name }) => [
      id,
      { id, name, color: 0, colors: { primary_color: 0, secondary_color: null, tertiary_color: null }, hoist: false, position: 1, permissions: '0', managed: false, mentionable: false, flags: 0 } as unknown as APIRole,
    ]),
  );
}

/** The press of a select on a bot message: `data` as Discord sends it (component type, values, resolved). */
function selectPress(
  customId: string,
  componentType: ComponentType.StringSelect | ComponentType.ChannelSelect | ComponentType.RoleSelect,
  values: string[],
  resolved: APIInteractionDataResolved | undefined,
  invoker: Invoker,
  flags: number,
): APIMessageComponentSelectMenuInteraction {
  const base = buttonPress(customId, invoker, flags);
  return { ...base, data: { custom_id: customId, component_type: componentType, values, ...(resolved ? { resolved } : {}) } } as APIMessageComponentSelectMenuInteraction;
}

/** Options `values` chosen in string select `customId` (type 3) on a bot message with `flags`. */
export function stringSelectPress(customId: string, values: string[], invoker: Invoker = {}, flags = 0): APIMessageComponentSelectMenuInteraction {
  return selectPress(customId, ComponentType.StringSelect, values, undefined, invoker, flags);
}

/** `channels` chosen in channel select `customId` (type 8): ids in `values`, the channels in `resolved`. */
export function channelSelectPress(customId: string, channels: ChannelRef[], invoker: Invoker = {}, flags = 0): APIMessageComponentSelectMenuInteraction {
  const resolved = channels.length > 0 ? { channels: resolvedChannels(channels) } : undefined;
  return selectPress(customId, ComponentType.ChannelSelect, channels.map((c) => c.id), resolved, invoker, flags);
}

/** `roles` chosen in role select `customId` (type 6): ids in `values`, the roles in `resolved`. */
export function roleSelectPress(customId: string, roles: RoleRef[], invoker: Invoker = {}, flags = 0): APIMessageComponentSelectMenuInteraction {
  const resolved = roles.length > 0 ? { roles: resolvedRoles(roles) } : undefined;
  return selectPress(customId, ComponentType.RoleSelect, roles.map((r) => r.id), resolved, invoker, flags);
}

/** What a posted message holds, for a message command's target. */
export interface TargetMessage {
  id?: string;
  channelId?: string;
  content?: string;
  embeds?: APIMessage['embeds'];
  components?: APIMessage['components'];
  /** The author's user id (default: the bot, as for a forwarded post). */
  authorId?: string;
}

/**
 * Message command `name` (type 2 with data.type 3) run on a message: `data.target_id` and the
 * message in `data.resolved.messages`, as Discord sends them.
 */
export function messageCommand(name: string, target: TargetMessage = {}, invoker: Invoker = {}): APIMessageApplicationCommandInteraction {
  const base = chatInput(name, undefined, {}, invoker);
  const channelId = target.channelId ?? invoker.channelId ?? CHANNEL_ID;
  const message = webhookMessage({ content: target.content ?? '', embeds: target.embeds ?? [], components: target.components ?? [] }, { applicationId: APP_ID, channelId });
  const id = target.id ?? snowflake();
  const resolvedMessage: APIMessage = {
    ...message,
    id,
    channel_id: channelId,
    ...(target.authorId ? { author: { ...message.author, id: target.authorId, bot: false } } : {}),
  };
  const data = { id: base.data.id, name, type: ApplicationCommandType.Message, target_id: id, resolved: { messages: { [id]: resolvedMessage } } };
  return { ...base, data } as unknown as APIMessageApplicationCommandInteraction;
}

/** One component of a submitted modal, inside its Label (type 18), with what it resolves. */
export interface SubmittedField {
  component: Record<string, unknown>;
  resolved?: APIInteractionDataResolved;
}

/** What the user submitted in a modal's Labels: `modalSubmitted(id, [field.text('account', 'nasa'), …])`. */
export const field = {
  /** A text input (type 4). */
  text: (customId: string, value: string): SubmittedField => ({ component: { type: ComponentType.TextInput, custom_id: customId, value } }),
  /** A string select (type 3). */
  stringSelect: (customId: string, values: string[]): SubmittedField => ({ component: { type: ComponentType.StringSelect, custom_id: customId, values } }),
  /** A channel select (type 8), its channels resolved. */
  channelSelect: (customId: string, channels: ChannelRef[]): SubmittedField => ({
    component: { type: ComponentType.ChannelSelect, custom_id: customId, values: channels.map((c) => c.id) },
    ...(channels.length > 0 ? { resolved: { channels: resolvedChannels(channels) } } : {}),
  }),
  /** A role select (type 6), its roles resolved. */
  roleSelect: (customId: string, roles: RoleRef[]): SubmittedField => ({
    component: { type: ComponentType.RoleSelect, custom_id: customId, values: roles.map((r) => r.id) },
    ...(roles.length > 0 ? { resolved: { roles: resolvedRoles(roles) } } : {}),
  }),
  /** A checkbox group (type 22): the values of the boxes ticked. */
  checkboxGroup: (customId: string, values: string[]): SubmittedField => ({ component: { type: ComponentType.CheckboxGroup, custom_id: customId, values } }),
};

/**
 * Modal `customId` submitted with Labels (type 18) around `fields`, their resolved entities
 * merged in `data.resolved`, as Discord sends a modal of Labels. `fromMessage`: the modal was
 * opened by a component on a bot message (the payload carries it, so the answer may update it).
 */
export function modalSubmitted(customId: string, fields: SubmittedField[], invoker: Invoker = {}, opts: { fromMessage?: boolean } = {}): APIModalSubmitInteraction {
  const base = modalSubmit(customId, {}, invoker);
  let id = 1;
  const components = fields.map((f) => {
    const label = id++;
    return { type: ComponentType.Label, id: label, component: { id: id++, ...f.component } };
  });
  const resolved: APIInteractionDataResolved = {};
  for (const f of fields) {
    for (const [key, entries] of Object.entries(f.resolved ?? {}) as [keyof APIInteractionDataResolved, Record<string, unknown>][]) {
      (resolved as Record<string, Record<string, unknown>>)[key] = { ...(resolved as Record<string, Record<string, unknown>>)[key], ...entries };
    }
  }
  const message = opts.fromMessage ? { message: webhookMessage(undefined, { applicationId: APP_ID, channelId: base.channel?.id ?? CHANNEL_ID }) } : {};
  const data = { custom_id: customId, components, ...(Object.keys(resolved).length > 0 ? { resolved } : {}) };
  return { ...base, ...message, data } as unknown as APIModalSubmitInteraction;
}

/** The message Discord would return for a webhook call carrying `body`. */
export function fakeMessage(body: Record<string, unknown> | undefined, flags = 0): APIMessage {
  return webhookMessage(body, { applicationId: APP_ID, channelId: CHANNEL_ID, flags });
}

export interface TestDiscord {
  client: Client;
  calls: CapturedCall[];
  /** Dispatches a raw interaction through discord.js and returns the Interaction it built. */
  dispatch(raw: APIInteraction): Interaction;
  /** Calls to the interaction callback endpoint. */
  callbacks(): CapturedCall[];
  /** Edits of the original response. */
  edits(): CapturedCall[];
  followUps(): CapturedCall[];
  /** Per-call latency of Discord itself (ms). */
  latencyMs: number;
  /** The REST double: its `respond` makes Discord answer some calls with an error. */
  recorder: RestRecorder;
  destroy(): Promise<void>;
}

type MakeRequest = NonNullable<NonNullable<ClientOptions['rest']>['makeRequest']>;

export function createTestDiscord(opts: { latencyMs?: number; wrapRest?: (recorded: MakeRequest) => MakeRequest } = {}): TestDiscord {
  const recorder = new RestRecorder({ api: 'https://discord.test/api', latencyMs: opts.latencyMs ?? 0, channelId: CHANNEL_ID });
  const recorded = recorder.rest.makeRequest!;
  const client = createDiscordClient({ rest: { ...recorder.rest, makeRequest: opts.wrapRest ? opts.wrapRest(recorded) : recorded } });
  client.rest.setToken('test-token-not-real');
  let last: Interaction | undefined;
  client.on(Events.InteractionCreate, (i) => {
    last = i;
  });
  return {
    client,
    calls: recorder.calls,
    dispatch(raw) {
      last = undefined;
      dispatchInteraction(client, raw);
      if (!last) throw new Error('discord.js did not emit the interaction');
      return last;
    },
    recorder,
    callbacks: () => recorder.callbacks(),
    edits: () => recorder.edits(),
    followUps: () => recorder.followUps(),
    get latencyMs() {
      return recorder.latencyMs;
    },
    set latencyMs(v: number) {
      recorder.latencyMs = v;
    },
    destroy: () => client.destroy(),
  };
}
