/**
 * Raw interaction payloads for unit tests that hand them straight to a discord.js client, with no
 * emulator and no gateway: options given by value (a channel option resolved), member permissions,
 * locale, a guild or a DM. They are built by the emulator's own payload builders.
 *
 *   const { chatInput, buttonPress } = interactionPayloads({ applicationId: APP_ID, guildId: GUILD_ID });
 *   dispatchInteraction(client, chatInput('feed', 'add', { handle: 'nasa', interval: 10 }, { locale: 'es-ES' }));
 */
import {
  ApplicationCommandOptionType,
  ChannelType,
  ComponentType,
  type APIApplicationCommandAutocompleteInteraction,
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandInteraction,
  type APIInteractionDataResolved,
  type APIInteractionDataResolvedChannel,
  type APIMessageComponentButtonInteraction,
  type APIModalInteractionResponseCallbackData,
  type APIModalSubmitInteraction,
} from 'discord-api-types/v10';
import { ALL_PERMISSIONS, channelPayload, makeUser, memberPayload } from '../guilds.js';
import { buildAutocompleteInteraction, buildButtonInteraction, buildChatInputInteraction, buildModalSubmitInteraction } from '../payloads/interactions.js';
import { buildModalSubmission } from '../payloads/modal.js';
import type { InteractionOrigin } from '../payloads/origin.js';
import { snowflake } from '../snowflake.js';
import { fakeMessage } from './messages.js';

/** What every payload of one builder set shares unless the invoker says otherwise. */
export interface PayloadDefaults {
  applicationId: string;
  guildId: string;
  guildLocale: string;
  channel: { id: string; name: string };
  userId: string;
  /** The member's permissions, decimal bit set. */
  permissions: string;
  locale: string;
  /** The bot's permissions in the channel, decimal bit set. */
  appPermissions: string;
}

export const DEFAULT_PAYLOAD_DEFAULTS: PayloadDefaults = {
  applicationId: '111111111111111111',
  guildId: '222222222222222222',
  guildLocale: 'en-US',
  channel: { id: '222222222222222223', name: 'general' },
  userId: '333333333333333333',
  permissions: ALL_PERMISSIONS,
  locale: 'en-US',
  appPermissions: ALL_PERMISSIONS,
};

/** Who sends an interaction, and where. */
export interface Invoker {
  userId?: string;
  username?: string;
  /** The member's permissions, decimal bit set (ignored in a DM). */
  permissions?: string;
  roles?: string[];
  locale?: string;
  /** `null`: a DM with the bot. */
  guildId?: string | null;
  channelId?: string;
}

/** A file a user attached to an attachment option; `url` is where the bot downloads it (a test serves it). */
export interface AttachmentValue {
  id?: string;
  filename: string;
  url: string;
  size?: number;
  contentType?: string;
}

/**
 * An option value: numbers become INTEGER options when whole (NUMBER otherwise), booleans
 * BOOLEAN, strings STRING; a channel becomes a CHANNEL option and an attachment an ATTACHMENT
 * option, each resolved in `data.resolved` as Discord sends them.
 */
export type OptionValue = string | number | boolean | { channel: { id: string; name: string; type?: ChannelType } } | { attachment: AttachmentValue };

function optionType(value: string | number | boolean): ApplicationCommandOptionType {
  if (typeof value === 'boolean') return ApplicationCommandOptionType.Boolean;
  if (typeof value === 'number') return Number.isInteger(value) ? ApplicationCommandOptionType.Integer : ApplicationCommandOptionType.Number;
  return ApplicationCommandOptionType.String;
}

/** The option tree of a command with an optional sub-command, and what it resolves. */
function optionTree(sub: string | undefined, values: Record<string, OptionValue>, focused?: string) {
  const resolved: APIInteractionDataResolved = {};
  const leaves = Object.entries(values).map(([name, value]): APIApplicationCommandInteractionDataOption => {
    if (typeof value === 'object' && 'attachment' in value) {
      const { id = snowflake(), filename, url, size = 0, contentType } = value.attachment;
      resolved.attachments ??= {};
      resolved.attachments[id] = { id, filename, size, url, proxy_url: url, ...(contentType ? { content_type: contentType } : {}), ephemeral: true };
      return { name, type: ApplicationCommandOptionType.Attachment, value: id };
    }
    if (typeof value === 'object') {
      const { id, name: channelName, type = ChannelType.GuildText } = value.channel;
      resolved.channels ??= {};
      resolved.channels[id] = { id, name: channelName, type, permissions: '0' } as APIInteractionDataResolvedChannel;
      return { name, type: ApplicationCommandOptionType.Channel, value: id };
    }
    return { name, type: optionType(value), value, ...(focused === name ? { focused: true } : {}) } as APIApplicationCommandInteractionDataOption;
  });
  const options = sub ? [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options: leaves } as APIApplicationCommandInteractionDataOption] : leaves;
  return { options, resolved: resolved.channels || resolved.attachments ? resolved : undefined };
}

/** A modal of optional text inputs, one per submitted value (what `buildModalSubmission` answers). */
function textInputModal(customId: string, values: Record<string, string>): APIModalInteractionResponseCallbackData {
  const components = Object.keys(values).map((id) => ({
    type: ComponentType.Label,
    label: id,
    component: { type: ComponentType.TextInput, custom_id: id, style: 1, required: false },
  }));
  return { custom_id: customId, title: customId, components } as unknown as APIModalInteractionResponseCallbackData;
}

export function interactionPayloads(overrides: Partial<PayloadDefaults> = {}) {
  const d: PayloadDefaults = { ...DEFAULT_PAYLOAD_DEFAULTS, ...overrides };

  const origin = (invoker: Invoker): InteractionOrigin => {
    const userId = invoker.userId ?? d.userId;
    const user = makeUser(userId, invoker.username ?? `user${userId.slice(-4)}`);
    const guildId = invoker.guildId === undefined ? d.guildId : invoker.guildId;
    const channelId = invoker.channelId ?? d.channel.id;
    const common = { applicationId: d.applicationId, user, locale: invoker.locale ?? d.locale, appPermissions: d.appPermissions };
    if (guildId === null) {
      return { ...common, channel: { id: channelId, type: ChannelType.DM, last_message_id: null, flags: 0, recipients: [user] } };
    }
    const channel = { id: channelId, name: channelId === d.channel.id ? d.channel.name : 'channel', type: ChannelType.GuildText };
    const member = { ...memberPayload({ id: guildId }, user, { roles: invoker.roles ?? [] }), permissions: invoker.permissions ?? d.permissions };
    return { ...common, channel: { id: channelId, ...channelPayload({ id: guildId }, channel) }, guild: { id: guildId, locale: d.guildLocale, member } };
  };

  return {
    /** `/command [sub] options…` */
    chatInput(command: string, sub: string | undefined, options: Record<string, OptionValue> = {}, invoker: Invoker = {}): APIChatInputApplicationCommandInteraction {
      const tree = optionTree(sub, options);
      return buildChatInputInteraction(origin(invoker), { id: snowflake(), name: command }, tree.options, tree.resolved);
    },

    /** A keystroke in option `focused` of `/command [sub]`. */
    autocomplete(
      command: string,
      sub: string | undefined,
      options: Record<string, string | number>,
      focused: string,
      invoker: Invoker = {},
    ): APIApplicationCommandAutocompleteInteraction {
      return buildAutocompleteInteraction(origin(invoker), { id: snowflake(), name: command }, optionTree(sub, options, focused).options);
    },

    /** A press of button `customId` on a bot message with `flags` (64: ephemeral). */
    buttonPress(customId: string, invoker: Invoker = {}, flags = 0): APIMessageComponentButtonInteraction {
      const where = origin(invoker);
      const message = fakeMessage(undefined, { applicationId: d.applicationId, channelId: where.channel.id, flags });
      return buildButtonInteraction(where, message, customId) as APIMessageComponentButtonInteraction;
    },

    /** A modal `customId` submitted with text input values by custom_id. */
    modalSubmit(customId: string, values: Record<string, string>, invoker: Invoker = {}): APIModalSubmitInteraction {
      return buildModalSubmitInteraction(origin(invoker), customId, buildModalSubmission(textInputModal(customId, values), values).components);
    },
  };
}

export type InteractionPayloads = ReturnType<typeof interactionPayloads>;
