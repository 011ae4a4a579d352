/**
 * What a server's admins do while the bot runs: create and delete channels, change a channel's
 * permission overwrites, change a role's permissions or the bot's roles. Each change is made to
 * the guilds the REST API and GUILD_CREATE read, and dispatched as Discord dispatches it to every
 * session that holds the guild (CHANNEL_CREATE / CHANNEL_UPDATE / CHANNEL_DELETE and
 * GUILD_ROLE_UPDATE under the Guilds intent; the bot's own GUILD_MEMBER_UPDATE whatever its
 * intents, as Discord documents).
 */
import type { APIUser } from 'discord-api-types/v10';
import type { EmulatorEvents } from './events.js';
import type { Gateway } from './gateway/gateway.js';
import type { GuildDirectory } from './guild-directory.js';
import { channelPayload, memberPayload, rolePayload, type NormalizedGuild } from './guilds.js';
import type { MessageStore } from './messages.js';
import { channelPermissions, OverwriteType } from './permissions.js';
import { snowflake } from './snowflake.js';
import type { EmulatedChannel, PermissionOverwrite } from './types.js';

/** GUILDS (1 << 0): the intent channel and role events belong to. */
const GUILDS_INTENT = 1 << 0;

/** Channel types a guild channel may be created with: text, voice, category, announcement, stage, forum, media. */
const CREATABLE_TYPES = new Set([0, 2, 4, 5, 13, 15, 16]);
/** Types whose names Discord lowercases, with dashes for spaces (as the client shows them). */
const SLUG_NAMED_TYPES = new Set([0, 5]);

export interface ChannelInit {
  name: string;
  /** Default 0 (text). */
  type?: number;
  parentId?: string;
  topic?: string;
  position?: number;
  permissionOverwrites?: PermissionOverwrite[];
}

/** A change that cannot be made: `status` 404 for an unknown guild, channel, role or member, 400 otherwise. */
export class GuildChangeError extends Error {
  override name = 'GuildChangeError';
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

/** A permission bit set as Discord stores it (a decimal string), or a 400. */
function bitSet(value: string, what: string): string {
  if (!/^\d{1,20}$/.test(value)) throw new GuildChangeError(400, `${what} must be a decimal permission bit set, got "${value}"`);
  return BigInt(value).toString();
}

export interface GuildChangesDeps {
  guilds: GuildDirectory;
  gateway: Gateway;
  messages: MessageStore;
  events: EmulatorEvents;
  botUser: APIUser;
}

export class GuildChanges {
  constructor(private readonly deps: GuildChangesDeps) {}

  /** Creates a channel (POST /guilds/{id}/channels as an admin would): CHANNEL_CREATE. Returns the channel object. */
  createChannel(guildId: string, init: ChannelInit): Record<string, unknown> {
    const guild = this.guildOf(guildId);
    const type = init.type ?? 0;
    if (!CREATABLE_TYPES.has(type)) throw new GuildChangeError(400, `channel type ${type} cannot be created in a guild`);
    const name = SLUG_NAMED_TYPES.has(type) ? init.name.trim().toLowerCase().replace(/\s+/g, '-') : init.name.trim();
    if (name.length < 1 || name.length > 100) throw new GuildChangeError(400, 'channel name must be 1–100 characters');
    if (init.parentId !== undefined) {
      const parent = guild.channels.find((c) => c.id === init.parentId);
      if (!parent || parent.type !== 4 || type === 4) throw new GuildChangeError(400, `parent ${init.parentId} is not a category of guild ${guild.id}`);
    }
    for (const o of init.permissionOverwrites ?? []) this.checkOverwriteTarget(guild, o);
    const siblings = guild.channels.filter((c) => c.parentId === init.parentId);
    const channel: EmulatedChannel = {
      id: snowflake(),
      name,
      type,
      position: init.position ?? Math.max(-1, ...siblings.map((c) => c.position ?? 0)) + 1,
      ...(init.parentId !== undefined ? { parentId: init.parentId } : {}),
      ...(init.topic !== undefined ? { topic: init.topic } : {}),
      permissionOverwrites: (init.permissionOverwrites ?? []).map((o) => ({ id: o.id, type: o.type, allow: bitSet(o.allow, 'allow'), deny: bitSet(o.deny, 'deny') })),
    };
    this.deps.guilds.addChannel(guild, channel);
    return this.announce(guild, channel, 'create');
  }

  /**
   * Deletes a channel and its messages: CHANNEL_DELETE. A category's channels stay, without a
   * parent, each announced with CHANNEL_UPDATE (as Discord does). Returns the deleted channel object.
   */
  deleteChannel(channelId: string): Record<string, unknown> {
    const removed = this.deps.guilds.removeChannel(channelId);
    if (!removed) throw new GuildChangeError(404, `unknown channel ${channelId}`);
    const { guild, channel } = removed;
    this.deps.messages.deleteChannel(channel.id);
    const payload = this.announce(guild, channel, 'delete');
    for (const child of guild.channels.filter((c) => c.parentId === channel.id)) {
      delete child.parentId;
      this.announce(guild, child, 'update');
    }
    return payload;
  }

  /** Sets (adds or replaces) a channel's overwrite for a role or a member: CHANNEL_UPDATE. Returns the channel object. */
  setPermissionOverwrite(channelId: string, overwrite: PermissionOverwrite): Record<string, unknown> {
    const { guild, channel } = this.channelOf(channelId);
    this.checkOverwriteTarget(guild, overwrite);
    const list = (channel.permissionOverwrites ??= []);
    const index = list.findIndex((o) => o.id === overwrite.id);
    const next = { id: overwrite.id, type: overwrite.type, allow: bitSet(overwrite.allow, 'allow'), deny: bitSet(overwrite.deny, 'deny') };
    if (index >= 0) list[index] = next;
    else list.push(next);
    return this.announce(guild, channel, 'update');
  }

  /** Removes a channel's overwrite for `overwriteId`: CHANNEL_UPDATE, unless there was none. Returns the channel object. */
  deletePermissionOverwrite(channelId: string, overwriteId: string): Record<string, unknown> {
    const { guild, channel } = this.channelOf(channelId);
    const list = channel.permissionOverwrites ?? [];
    const index = list.findIndex((o) => o.id === overwriteId);
    if (index < 0) return channelPayload(guild, channel);
    list.splice(index, 1);
    return this.announce(guild, channel, 'update');
  }

  /** Sets a role's permissions (@everyone's id is the guild's): GUILD_ROLE_UPDATE. Returns the role object. */
  setRolePermissions(guildId: string, roleId: string, permissions: string): Record<string, unknown> {
    const guild = this.guildOf(guildId);
    const role = guild.roles.find((r) => r.id === roleId);
    if (!role) throw new GuildChangeError(404, `unknown role ${roleId} in guild ${guild.id}`);
    role.permissions = bitSet(permissions, 'permissions');
    const payload = rolePayload(role);
    this.deps.gateway.dispatchGuildEvent(guild.id, 'GUILD_ROLE_UPDATE', { guild_id: guild.id, role: payload }, GUILDS_INTENT);
    this.deps.events.emit('guild', { action: 'role_update', guildId: guild.id, data: structuredClone(payload) });
    return payload;
  }

  /** Replaces the bot's roles in a guild: GUILD_MEMBER_UPDATE for the bot. Returns its member object. */
  setBotRoles(guildId: string, roleIds: string[]): Record<string, unknown> {
    const guild = this.guildOf(guildId);
    const unknown = roleIds.find((id) => id === guild.id || !guild.roles.some((r) => r.id === id));
    if (unknown !== undefined) throw new GuildChangeError(404, `unknown role ${unknown} in guild ${guild.id} (@everyone is implicit)`);
    guild.botRoles = [...new Set(roleIds)];
    const member = this.botMember(guild.id);
    // Sent for the current user whatever the intents (Discord's gateway docs, "Gateway Intents").
    this.deps.gateway.dispatchGuildEvent(guild.id, 'GUILD_MEMBER_UPDATE', { guild_id: guild.id, ...member }, null);
    this.deps.events.emit('guild', { action: 'bot_member_update', guildId: guild.id, data: structuredClone(member) });
    return member;
  }

  /** A channel's object as the REST API answers it (overwrites included), or undefined when there is none (any more). */
  channelObject(channelId: string): Record<string, unknown> | undefined {
    const found = this.deps.guilds.channel(channelId);
    return found ? channelPayload(found.guild, found.channel) : undefined;
  }

  /** The bot's member object in a guild, as `GET /guilds/{id}/members/{bot}` answers it. */
  botMember(guildId: string): Record<string, unknown> {
    const guild = this.guildOf(guildId);
    return memberPayload(guild, this.deps.botUser, { roles: guild.botRoles });
  }

  /** The bot's permissions in a channel (overwrites applied), or in the guild when `channelId` is omitted; decimal string. */
  botPermissions(guildId: string, channelId?: string): string {
    const guild = this.guildOf(guildId);
    let channel: Pick<EmulatedChannel, 'permissionOverwrites'> = {};
    if (channelId !== undefined) {
      const found = this.channelOf(channelId);
      if (found.guild !== guild) throw new GuildChangeError(404, `channel ${channelId} is not in guild ${guild.id}`);
      channel = found.channel;
    }
    return channelPermissions(guild, channel, this.deps.botUser.id, guild.botRoles).toString();
  }

  private announce(guild: NormalizedGuild, channel: EmulatedChannel, action: 'create' | 'update' | 'delete'): Record<string, unknown> {
    const payload = channelPayload(guild, channel);
    this.deps.gateway.dispatchGuildEvent(guild.id, `CHANNEL_${action.toUpperCase()}`, payload, GUILDS_INTENT);
    this.deps.events.emit('channel', { action, guildId: guild.id, channel: structuredClone(payload) });
    return payload;
  }

  private checkOverwriteTarget(guild: NormalizedGuild, o: PermissionOverwrite): void {
    if (o.type === OverwriteType.Role) {
      if (!guild.roles.some((r) => r.id === o.id)) throw new GuildChangeError(404, `unknown role ${o.id} in guild ${guild.id}`);
      return;
    }
    const isMember = o.id === this.deps.botUser.id || o.id === guild.ownerId || guild.members.some((m) => m.userId === o.id);
    if (!isMember) throw new GuildChangeError(404, `unknown member ${o.id} in guild ${guild.id}`);
  }

  private guildOf(guildId: string): NormalizedGuild {
    const guild = this.deps.guilds.get(guildId);
    if (!guild) throw new GuildChangeError(404, `unknown guild ${guildId}`);
    return guild;
  }

  private channelOf(channelId: string) {
    const found = this.deps.guilds.channel(channelId);
    if (!found) throw new GuildChangeError(404, `unknown channel ${channelId}`);
    return found;
  }
}
