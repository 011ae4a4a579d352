/**
 * What a user does in the Discord client, turned into interactions: builds the payload the client
 * would send (refusing what the client would not let the user do), dispatches it over the gateway
 * to every session of the shard that owns the guild, or POSTs it to the Interactions Endpoint when
 * one is set, and registers it so its acknowledgement clock starts.
 */
import { ApplicationCommandOptionType, ComponentType, type APIInteraction, type APIInteractionDataResolved, type APIUser } from 'discord-api-types/v10';
import type { AttachmentStore } from './attachments.js';
import type { CommandStore } from './commands.js';
import type { Gateway } from './gateway/gateway.js';
import type { GuildDirectory } from './guild-directory.js';
import { makeUser } from './guilds.js';
import { findComponent, InteractionHandle, type ActorOverrides, type HandleHost } from './handle.js';
import type { InteractionRecord, InteractionRegistry, RegisterMeta } from './interactions/registry.js';
import type { Logger } from './log.js';
import type { MessageStore } from './messages.js';
import type { Actor, InteractionInput } from './options.js';
import {
  buildAutocompleteInteraction,
  buildButtonInteraction,
  buildChatInputInteraction,
  buildMessageCommandInteraction,
  buildModalSubmitInteraction,
  buildSelectInteraction,
  type SelectComponentType,
} from './payloads/interactions.js';
import { buildModalSubmission, type ModalValues } from './payloads/modal.js';
import { buildCommandOptions, InteractionInputError, resolveEntity, type Viewer } from './payloads/options.js';
import { checkPicks } from './payloads/picks.js';
import type { InteractionContext } from './payloads/origin.js';
import { channelPermissions, hasPermissions } from './permissions.js';
import type { InteractionKind } from './types.js';

export interface InteractionSenderDeps {
  applicationId: string;
  botUser: APIUser;
  defaultUserId: string;
  guilds: GuildDirectory;
  commands: CommandStore;
  registry: InteractionRegistry;
  messages: MessageStore;
  /** Files users upload for attachment options. */
  attachments: AttachmentStore;
  gateway: Gateway;
  /** Interactions over HTTP, when an Interactions Endpoint URL is set. */
  delivery: { readonly active: boolean; deliver(rec: InteractionRecord): void };
  logger: Logger;
  /** Handles call back into the emulator for follow-up actions (press, select, submit). */
  host: HandleHost;
}

/** The option type whose mentions a select's values are, by select component type. */
const SELECT_VALUE_TYPES: Partial<Record<number, ApplicationCommandOptionType>> = {
  [ComponentType.UserSelect]: ApplicationCommandOptionType.User,
  [ComponentType.RoleSelect]: ApplicationCommandOptionType.Role,
  [ComponentType.MentionableSelect]: ApplicationCommandOptionType.Mentionable,
  [ComponentType.ChannelSelect]: ApplicationCommandOptionType.Channel,
};

const RAW_KINDS: Record<number, InteractionKind> = { 2: 'command', 3: 'component', 4: 'autocomplete', 5: 'modal_submit' };

export class InteractionSender {
  constructor(private readonly deps: InteractionSenderDeps) {}

  send(input: InteractionInput): InteractionHandle {
    switch (input.type) {
      case 'command':
      case 'autocomplete':
        return this.sendCommand(input);
      case 'button':
        return this.pressButton(input);
      case 'select':
        return this.selectMenu(input);
      case 'modal_submit':
        return this.submitModal(input);
      case 'message_command':
        return this.runMessageCommand(input);
      case 'raw':
        return this.sendRaw(input.payload);
    }
  }

  pressButton(input: { messageId: string; customId: string } & ActorOverrides): InteractionHandle {
    const { stored, component, ctx } = this.componentTarget(input);
    if (component.type !== ComponentType.Button) throw new InteractionInputError(`component "${input.customId}" is not a button`);
    if (component.disabled === true) throw new InteractionInputError(`button "${input.customId}" is disabled`);
    const payload = buildButtonInteraction(ctx, structuredClone(stored.message), input.customId);
    return this.dispatch(payload, { kind: 'component', ctx, shardId: null, customId: input.customId, sourceMessageId: stored.message.id });
  }

  selectMenu(input: { messageId: string; customId: string; values: string[] } & ActorOverrides): InteractionHandle {
    const { stored, component, ctx } = this.componentTarget(input);
    const type = component.type as number;
    if (![3, 5, 6, 7, 8].includes(type)) throw new InteractionInputError(`component "${input.customId}" is not a select menu`);
    if (component.disabled === true) throw new InteractionInputError(`select "${input.customId}" is disabled`);
    checkPicks(component, input.values, { inModal: false, guild: ctx.guild });
    const resolved = this.resolveSelectValues(ctx, type, input.values, input.customId);
    const payload = buildSelectInteraction(ctx, structuredClone(stored.message), input.customId, type as SelectComponentType, input.values, resolved);
    return this.dispatch(payload, { kind: 'component', ctx, shardId: null, customId: input.customId, sourceMessageId: stored.message.id });
  }

  submitModal(input: { interactionId: string; values: ModalValues } & ActorOverrides): InteractionHandle {
    const source = this.deps.registry.get(input.interactionId);
    if (!source) throw new InteractionInputError(`unknown interaction ${input.interactionId}`);
    if (!source.modal) throw new InteractionInputError(`interaction ${input.interactionId} did not show a modal`);
    const ctx = this.context({ ...this.actorFrom(source), ...input, guildId: source.ctx.guild.id, channelId: source.ctx.channel.id });
    const resolve = (type: number, values: string[], resolved: APIInteractionDataResolved, customId: string) => {
      const optionType = SELECT_VALUE_TYPES[type];
      if (optionType === undefined) return;
      for (const value of values) resolveEntity(ctx.guild, optionType, value, resolved, customId, this.viewer(ctx));
    };
    const { components, resolved } = buildModalSubmission(source.modal, input.values, { guild: ctx.guild, resolve });
    const message = source.sourceMessageId ? this.deps.messages.live(source.sourceMessageId) : undefined;
    const payload = buildModalSubmitInteraction(ctx, source.modal.custom_id, components, message ? structuredClone(message.message) : undefined, resolved);
    return this.dispatch(payload, {
      kind: 'modal_submit',
      ctx,
      shardId: null,
      customId: source.modal.custom_id,
      sourceInteractionId: source.id,
      ...(message ? { sourceMessageId: message.message.id } : {}),
    });
  }

  /**
   * Right-click message `messageId` → Apps → `commandName`: a registered message command (type 3)
   * run on that message, from its channel, by default by whoever the message answered.
   */
  runMessageCommand(input: { commandName: string; messageId: string } & ActorOverrides): InteractionHandle {
    const stored = this.deps.messages.live(input.messageId);
    if (!stored) throw new InteractionInputError(`unknown message ${input.messageId}`);
    if (!stored.guildId) throw new InteractionInputError(`message ${input.messageId} is not in a guild`);
    const source = stored.interactionId ? this.deps.registry.get(stored.interactionId) : undefined;
    const ctx = this.context({ ...this.actorFrom(source), ...input, guildId: stored.guildId, channelId: stored.message.channel_id });
    const command = this.deps.commands.find(ctx.guild.id, input.commandName, 3);
    if (!command) throw new InteractionInputError(`message command "${input.commandName}" is not registered (globally or in guild ${ctx.guild.id})`);
    const required = command.default_member_permissions;
    if (required && !hasPermissions(ctx.permissions, required)) {
      throw new InteractionInputError(`"${command.name}" is hidden from this member: default_member_permissions ${required} not met by ${ctx.permissions}`);
    }
    const payload = buildMessageCommandInteraction(ctx, command, structuredClone(stored.message));
    return this.dispatch(payload, { kind: 'command', ctx, shardId: null, commandName: command.name });
  }

  private sendCommand(input: Extract<InteractionInput, { type: 'command' | 'autocomplete' }>): InteractionHandle {
    const ctx = this.context(input);
    const command = this.deps.commands.find(ctx.guild.id, input.commandName);
    if (!command) throw new InteractionInputError(`command "/${input.commandName}" is not registered (globally or in guild ${ctx.guild.id})`);
    const required = command.default_member_permissions;
    const ignorePerms = input.type === 'command' && input.ignoreDefaultMemberPermissions === true;
    if (required && !ignorePerms && !hasPermissions(ctx.permissions, required)) {
      throw new InteractionInputError(`"/${command.name}" is hidden from this member: default_member_permissions ${required} not met by ${ctx.permissions}`);
    }
    const meta = { ctx, shardId: null, commandName: command.name };
    if (input.type === 'autocomplete') {
      const { options } = buildCommandOptions(command, input, ctx.guild, { viewer: this.viewer(ctx) });
      return this.dispatch(buildAutocompleteInteraction(ctx, command, options), { ...meta, kind: 'autocomplete' });
    }
    const files = this.deps.attachments;
    const attachments = { get: (id: string) => files.uploaded(id), upload: files.upload.bind(files) };
    const { options, resolved } = buildCommandOptions(command, { ...input, focused: undefined }, ctx.guild, { attachments, viewer: this.viewer(ctx) });
    return this.dispatch(buildChatInputInteraction(ctx, command, options, resolved), { ...meta, kind: 'command' });
  }

  private sendRaw(payload: APIInteraction): InteractionHandle {
    const guildId = payload.guild_id;
    if (!guildId) throw new InteractionInputError('raw interactions must carry guild_id');
    const channelId = payload.channel?.id ?? payload.channel_id;
    const userId = payload.member?.user.id ?? payload.user?.id;
    const locale = 'locale' in payload ? String(payload.locale) : undefined;
    const ctx = this.context({ guildId, channelId, userId, locale });
    const kind = RAW_KINDS[payload.type];
    if (!kind) throw new InteractionInputError(`unsupported interaction type ${payload.type}`);
    const message = 'message' in payload && payload.message ? payload.message : undefined;
    return this.dispatch(payload, { kind, ctx, shardId: null, ...(message ? { sourceMessageId: message.id } : {}) });
  }

  private dispatch(payload: APIInteraction, meta: RegisterMeta): InteractionHandle {
    const { delivery, gateway, registry, logger } = this.deps;
    if (delivery.active) {
      // Registered first: the bot may answer through the callback route before the POST returns.
      const rec = registry.register(payload, { ...meta, shardId: null });
      delivery.deliver(rec);
      logger.debug({ interactionId: rec.id, kind: rec.kind }, 'interaction posted to the interactions endpoint');
      return new InteractionHandle(this.deps.host, rec.id, rec.token, payload);
    }
    // Every session holding the guild's shard gets it (a blue/green deploy runs two); the first callback wins.
    const { shardId, sessions } = gateway.dispatchToGuild(meta.ctx.guild.id, 'INTERACTION_CREATE', payload);
    const rec = registry.register(payload, { ...meta, shardId, dispatchedTo: sessions });
    logger.debug({ interactionId: rec.id, kind: rec.kind, shardId, sessions: sessions.length }, 'interaction dispatched');
    return new InteractionHandle(this.deps.host, rec.id, rec.token, payload);
  }

  /** The bot message carrying component `customId`, and who acts on it (by default, whoever the message answered). */
  private componentTarget(input: { messageId: string; customId: string } & ActorOverrides) {
    const { messageId, customId } = input;
    const stored = this.deps.messages.live(messageId);
    if (!stored) throw new InteractionInputError(`unknown message ${messageId}`);
    if (stored.message.author.id !== this.deps.botUser.id) throw new InteractionInputError(`message ${messageId} is not the bot's`);
    const component = findComponent(stored.message.components, customId);
    if (!component) throw new InteractionInputError(`message ${messageId} has no component "${customId}"`);
    const source = stored.interactionId ? this.deps.registry.get(stored.interactionId) : undefined;
    const ctx = this.context({ ...this.actorFrom(source), ...input, guildId: stored.guildId ?? undefined, channelId: stored.message.channel_id });
    return { stored, component, ctx };
  }

  private actorFrom(source: InteractionRecord | undefined): ActorOverrides {
    if (!source) return {};
    return { userId: source.ctx.user.id, username: source.ctx.user.username, locale: String(source.ctx.locale) };
  }

  private context(actor: Actor): InteractionContext {
    const { guilds, defaultUserId } = this.deps;
    const guild = actor.guildId ? guilds.get(actor.guildId) : guilds.list[0];
    if (!guild) throw new InteractionInputError(actor.guildId ? `unknown guild ${actor.guildId}` : 'no guild configured');
    const channel = actor.channelId
      ? guild.channels.find((c) => c.id === actor.channelId)
      : guild.channels.find((c) => c.type === 0 || c.type === 5);
    if (!channel) throw new InteractionInputError(actor.channelId ? `guild ${guild.id} has no channel ${actor.channelId}` : `guild ${guild.id} has no text channel`);
    const userId = actor.userId ?? defaultUserId;
    const member = guild.members.find((m) => m.userId === userId);
    const roles = actor.roles ?? member?.roles ?? [];
    const username = actor.username ?? member?.username ?? (userId === defaultUserId ? 'tester' : `user${userId.slice(-4)}`);
    // Both in the channel, overwrites applied, as Discord computes `member.permissions` and `app_permissions`.
    const permissions = actor.permissions ?? channelPermissions(guild, channel, userId, roles).toString();
    if (!/^\d+$/.test(permissions)) throw new InteractionInputError(`permissions must be a decimal bit set, got "${permissions}"`);
    return {
      applicationId: this.deps.applicationId,
      guild,
      channel,
      user: makeUser(userId, username, { global_name: member?.globalName ?? null }),
      memberRoles: roles,
      nick: member?.nick ?? null,
      permissions,
      locale: actor.locale ?? 'en-US',
      appPermissions: channelPermissions(guild, channel, this.deps.botUser.id, guild.botRoles).toString(),
    };
  }

  /** Users, roles or channels picked in a select, resolved like command option mentions. */
  private resolveSelectValues(ctx: InteractionContext, type: number, values: string[], customId: string): APIInteractionDataResolved | undefined {
    const optionType = SELECT_VALUE_TYPES[type];
    if (optionType === undefined) return undefined;
    const resolved: APIInteractionDataResolved = {};
    for (const value of values) resolveEntity(ctx.guild, optionType, value, resolved, customId, this.viewer(ctx));
    return resolved;
  }

  /** Where the interaction happens, for the permissions its resolved channels and members carry. */
  private viewer(ctx: InteractionContext): Viewer {
    return { channel: ctx.channel, invoker: { userId: ctx.user.id, roles: ctx.memberRoles }, botUserId: this.deps.botUser.id };
  }
}
