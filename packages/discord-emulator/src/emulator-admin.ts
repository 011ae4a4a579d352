/**
 * The part of the emulator's public API that plays the server's admins and its users' files:
 * channels created and deleted, permission overwrites, role permissions and the bot's roles
 * (guild-changes.ts), files uploaded for attachment options (attachments.ts). DiscordEmulator
 * extends it; the control API's routes for the same are in control/guild-routes.ts.
 */
import type { APIAttachment } from 'discord-api-types/v10';
import type { AttachmentStore, StoredFile } from './attachments.js';
import type { ChannelInit, GuildChanges } from './guild-changes.js';
import type { GuildMembership } from './guild-membership.js';
import type { AttachmentUpload } from './payloads/options.js';

/** A permission bit set: the decimal string Discord sends, or a bigint (`Permission.SendMessages`). */
export type PermissionBits = string | bigint;

export interface OverwriteInput {
  /** 0: a role (the guild id for @everyone), 1: a member. */
  type: 0 | 1;
  allow?: PermissionBits;
  deny?: PermissionBits;
}

export abstract class EmulatorAdmin {
  protected abstract readonly guildChanges: GuildChanges;
  protected abstract readonly attachments: AttachmentStore;
  protected abstract readonly membership: GuildMembership;

  /**
   * Removes the bot from a guild, as its admins would: GUILD_DELETE without `unavailable` to the
   * session holding it; from then on the bot's REST calls about it answer 404 10004 (its channels
   * 10003) and `GET /users/@me/guilds` leaves it out. Returns the shards told. Throws
   * GuildChangeError (404 unknown guild, 400 not in it).
   */
  removeBotFromGuild(guildId: string): number[] {
    return this.membership.removeBot(guildId);
  }

  /** Adds the bot back to a guild it was removed from: GUILD_CREATE with the whole guild. Returns the shards told. */
  addBotToGuild(guildId: string): number[] {
    return this.membership.addBot(guildId);
  }

  /** Whether the bot is in the guild (not removed). */
  botInGuild(guildId: string): boolean {
    return this.membership.has(guildId);
  }

  /**
   * Creates a channel in a guild as an admin would; every session holding the guild gets
   * CHANNEL_CREATE. Text and announcement names are lowercased with dashes for spaces, as Discord
   * does. Returns the channel object. Throws GuildChangeError (`status` 404 or 400).
   */
  createChannel(guildId: string, init: ChannelInit): Record<string, unknown> {
    return this.guildChanges.createChannel(guildId, init);
  }

  /** A channel's object as `GET /channels/{id}` answers it (with `permission_overwrites`); undefined once deleted. */
  channel(channelId: string): Record<string, unknown> | undefined {
    return this.guildChanges.channelObject(channelId);
  }

  /**
   * Deletes a channel: CHANNEL_DELETE; its messages go with it, the REST API answers 404 10003
   * for it from now on, and a category's channels lose their parent (CHANNEL_UPDATE each).
   * Returns the deleted channel object.
   */
  deleteChannel(channelId: string): Record<string, unknown> {
    return this.guildChanges.deleteChannel(channelId);
  }

  /** Sets a channel's overwrite for a role (type 0) or a member (type 1): CHANNEL_UPDATE. Returns the channel object. */
  setPermissionOverwrite(channelId: string, overwriteId: string, overwrite: OverwriteInput): Record<string, unknown> {
    const { type, allow = '0', deny = '0' } = overwrite;
    return this.guildChanges.setPermissionOverwrite(channelId, { id: overwriteId, type, allow: String(allow), deny: String(deny) });
  }

  /** Removes a channel's overwrite (CHANNEL_UPDATE; nothing when there was none). Returns the channel object. */
  deletePermissionOverwrite(channelId: string, overwriteId: string): Record<string, unknown> {
    return this.guildChanges.deletePermissionOverwrite(channelId, overwriteId);
  }

  /** Sets a role's permissions (@everyone: the guild's id): GUILD_ROLE_UPDATE. Returns the role object. */
  setRolePermissions(guildId: string, roleId: string, permissions: PermissionBits): Record<string, unknown> {
    return this.guildChanges.setRolePermissions(guildId, roleId, String(permissions));
  }

  /** Replaces the bot's roles in a guild (@everyone is implicit): the bot's GUILD_MEMBER_UPDATE. Returns its member object. */
  setBotRoles(guildId: string, roleIds: string[]): Record<string, unknown> {
    return this.guildChanges.setBotRoles(guildId, roleIds);
  }

  /** The bot's member object in a guild (its `roles`), as `GET /guilds/{id}/members/{bot id}` answers. */
  botMember(guildId: string): Record<string, unknown> {
    return this.guildChanges.botMember(guildId);
  }

  /**
   * The bot's permissions (decimal string) in a channel of the guild, overwrites applied as
   * Discord computes them, or guild-wide when `channelId` is omitted: what `app_permissions`
   * carries and what posting to the channel is checked against.
   */
  botPermissions(guildId: string, channelId?: string): string {
    return this.guildChanges.botPermissions(guildId, channelId);
  }

  /**
   * Uploads a file as the Discord client does when a user picks one for a command's attachment
   * option; pass its `id` as that option's value (or pass the file itself as the value). Its `url`
   * serves the bytes. Throws InteractionInputError past Discord's 10 MiB limit.
   */
  uploadAttachment(file: AttachmentUpload): APIAttachment {
    return this.attachments.upload(file);
  }

  /** The bytes behind an attachment's `url`: a file the bot attached to a message, or one a user uploaded. */
  attachment(id: string): StoredFile | undefined {
    return this.attachments.get(id);
  }
}
