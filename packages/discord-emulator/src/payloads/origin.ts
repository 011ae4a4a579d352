/**
 * Where an interaction happens and who makes it, and the envelope every INTERACTION_CREATE
 * payload shares (id, token, locale, channel, member or user). The emulator describes a member of
 * a configured guild (`InteractionContext`); unit tests describe anyone, in a guild or a DM with
 * the bot (`InteractionOrigin`). Both end in the same envelope.
 */
import { InteractionContextType, type APIUser, type InteractionType, type Locale } from 'discord-api-types/v10';
import { ATTACHMENT_SIZE_LIMIT } from '../attachments.js';
import { channelPayload, memberPayload, type NormalizedGuild } from '../guilds.js';
import { interactionToken, snowflake } from '../snowflake.js';
import type { EmulatedChannel } from '../types.js';

/** Who interacts, where: a member of one of the emulator's guilds. */
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

/** Who interacts, where, as the payload carries it: a guild member, or a user in a DM with the bot. */
export interface InteractionOrigin {
  applicationId: string;
  user: APIUser;
  locale: Locale | string;
  /** The bot's permissions in the channel, decimal string. */
  appPermissions: string;
  /** The channel object as interactions carry it. */
  channel: { id: string } & Record<string, unknown>;
  /** Absent in a DM with the bot. `member` is the guild member object, `permissions` included. */
  guild?: { id: string; locale: string; member: Record<string, unknown> };
}

/** Either description; payloads built from an emulator context are guild interactions. */
export type InteractionWhere = InteractionContext | InteractionOrigin;


export function originOf(where: InteractionWhere): InteractionOrigin {
  if (!('memberRoles' in where)) return where;
  const { guild, user } = where;
  const member = memberPayload(guild, user, { nick: where.nick ?? undefined, roles: where.memberRoles });
  return {
    applicationId: where.applicationId,
    user,
    locale: where.locale,
    appPermissions: where.appPermissions,
    channel: { id: where.channel.id, ...channelPayload(guild, where.channel) },
    guild: { id: guild.id, locale: guild.locale, member: { ...member, permissions: where.permissions } },
  };
}

/** The fields every interaction payload has, for a fresh id and token. */
export function envelope<T extends InteractionType>(where: InteractionWhere, type: T) {
  const origin = originOf(where);
  const id = snowflake();
  const common = {
    id,
    application_id: origin.applicationId,
    type,
    token: interactionToken(id),
    version: 1 as const,
    channel: origin.channel,
    channel_id: origin.channel.id,
    app_permissions: origin.appPermissions,
    locale: origin.locale,
    entitlements: [],
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
  const guild = origin.guild;
  if (!guild) {
    // A guild-installed bot in its DM: the owner of the installation is "0".
    return { ...common, user: origin.user, authorizing_integration_owners: { '0': '0' }, context: InteractionContextType.BotDM };
  }
  return {
    ...common,
    guild: { id: guild.id, locale: guild.locale, features: [] },
    guild_id: guild.id,
    guild_locale: guild.locale,
    member: guild.member,
    authorizing_integration_owners: { '0': guild.id },
    context: InteractionContextType.Guild,
  };
}
