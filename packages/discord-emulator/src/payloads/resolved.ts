/**
 * `data.resolved` of an interaction: the users, members, roles, channels and attachments its
 * options or select values name, as Discord sends them. Seen from where the interaction happens
 * (`Viewer`), channels carry the invoker's `permissions` and the bot's `app_permissions` there
 * and members their `permissions` in the interaction's channel, overwrites applied (without
 * implicit permissions, as Discord documents).
 */
import { ApplicationCommandOptionType, type APIApplicationCommandOption, type APIInteractionDataResolved } from 'discord-api-types/v10';
import { channelPayload, memberPayload, rolePayload, type NormalizedGuild } from '../guilds.js';
import { channelPermissions } from '../permissions.js';
import type { EmulatedChannel } from '../types.js';
import { InteractionInputError, type AttachmentSource, type AttachmentUpload, type OptionInput } from './input.js';

/** Where an interaction happens and who makes it, for the permissions resolved objects carry. */
export interface Viewer {
  /** The interaction's channel. */
  channel: EmulatedChannel;
  invoker: { userId: string; roles: string[] };
  botUserId: string;
}

/** The fields of a partial channel in `resolved.channels` (Discord's "Partial Channel objects only have …"). */
const PARTIAL_CHANNEL_FIELDS = ['id', 'name', 'type', 'last_message_id', 'last_pin_timestamp', 'nsfw', 'parent_id', 'guild_id', 'flags', 'rate_limit_per_user', 'topic', 'position'];

function resolvedChannel(guild: NormalizedGuild, channel: EmulatedChannel, viewer: Viewer | undefined): Record<string, unknown> {
  const full = channelPayload(guild, channel);
  const partial: Record<string, unknown> = Object.fromEntries(PARTIAL_CHANNEL_FIELDS.filter((k) => k in full).map((k) => [k, full[k]]));
  partial.permissions = viewer ? channelPermissions(guild, channel, viewer.invoker.userId, viewer.invoker.roles).toString() : '0';
  if (viewer) partial.app_permissions = channelPermissions(guild, channel, viewer.botUserId, guild.botRoles).toString();
  return partial;
}

/** Adds the user, role or channel `id` names to `resolved`, as Discord does for mentions and selects. */
export function resolveEntity(
  guild: NormalizedGuild,
  type: ApplicationCommandOptionType,
  id: string,
  resolved: APIInteractionDataResolved,
  name: string,
  viewer?: Viewer,
): void {
  const channel = guild.channels.find((c) => c.id === id);
  const role = guild.roles.find((r) => r.id === id);
  const member = guild.members.find((m) => m.userId === id);
  const wantsUser = type === ApplicationCommandOptionType.User || type === ApplicationCommandOptionType.Mentionable;
  const wantsRole = type === ApplicationCommandOptionType.Role || type === ApplicationCommandOptionType.Mentionable;
  if (type === ApplicationCommandOptionType.Channel && channel) {
    resolved.channels ??= {};
    resolved.channels[id] = resolvedChannel(guild, channel, viewer) as never;
  } else if (wantsRole && role) {
    resolved.roles ??= {};
    resolved.roles[id] = rolePayload(role) as never;
  } else if (wantsUser && member) {
    resolved.users ??= {};
    resolved.members ??= {};
    const user = { id, username: member.username ?? `user${id.slice(-4)}`, discriminator: '0', global_name: member.globalName ?? null, avatar: null };
    resolved.users[id] = user as never;
    // Partial members: no user, deaf or mute.
    const { user: _user, deaf: _deaf, mute: _mute, ...rest } = memberPayload(guild, user as never, member);
    const permissions = viewer ? channelPermissions(guild, viewer.channel, id, member.roles ?? []).toString() : '0';
    resolved.members[id] = { ...rest, permissions } as never;
  } else if (type !== ApplicationCommandOptionType.Attachment) {
    throw new InteractionInputError(`option ${name}: ${id} is not a known ${ApplicationCommandOptionType[type]} of guild ${guild.id}`);
  }
}

/** The attachment an attachment option names (uploading a picked file first), added to `resolved`. */
export function resolveAttachment(
  def: APIApplicationCommandOption,
  raw: OptionInput | AttachmentUpload,
  source: AttachmentSource,
  resolved: APIInteractionDataResolved,
): string {
  const attachment = typeof raw === 'object' ? source.upload(raw) : source.get(String(raw));
  if (!attachment) throw new InteractionInputError(`option ${def.name}: no uploaded attachment ${String(raw)}`);
  resolved.attachments ??= {};
  resolved.attachments[attachment.id] = attachment;
  return attachment.id;
}
