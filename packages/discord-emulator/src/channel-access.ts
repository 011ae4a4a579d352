/**
 * What Discord refuses the bot in a guild channel, from its permissions there (permissions.ts:
 * its roles, then the channel's overwrites): without View Channel it cannot see the channel
 * (403 50001 Missing Access); posting needs Send Messages, Embed Links for embeds and Attach
 * Files for files (403 50013 Missing Permissions).
 */
import { missingAccess, missingPermissions, type RestResult } from './errors.js';
import type { NormalizedGuild } from './guilds.js';
import { channelPermissions, holds, Permission } from './permissions.js';
import type { EmulatedChannel } from './types.js';
import { isObject } from './validation/fields.js';

export function botPermissionsIn(guild: NormalizedGuild, channel: EmulatedChannel, botUserId: string): bigint {
  return channelPermissions(guild, channel, botUserId, guild.botRoles);
}

/** 403 50001 when the bot cannot see the channel. */
export function refuseUnseen(guild: NormalizedGuild, channel: EmulatedChannel, botUserId: string): RestResult | undefined {
  return holds(botPermissionsIn(guild, channel, botUserId), Permission.ViewChannel) ? undefined : missingAccess();
}

/** Discord's refusal of a message the bot posts to the channel, or undefined when it may. */
export function refusePost(guild: NormalizedGuild, channel: EmulatedChannel, botUserId: string, body: unknown, fileCount: number): RestResult | undefined {
  const have = botPermissionsIn(guild, channel, botUserId);
  if (!holds(have, Permission.ViewChannel)) return missingAccess();
  if (!holds(have, Permission.SendMessages)) return missingPermissions();
  const embeds = isObject(body) && Array.isArray(body.embeds) && body.embeds.length > 0;
  if (embeds && !holds(have, Permission.EmbedLinks)) return missingPermissions();
  if (fileCount > 0 && !holds(have, Permission.AttachFiles)) return missingPermissions();
  return undefined;
}
