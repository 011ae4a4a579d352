/**
 * Permission arithmetic as Discord documents it (topics/permissions, "Permission Overwrites"):
 * base permissions from @everyone and the member's roles (the owner and Administrator get all),
 * then the channel's overwrites, @everyone's first, then the member's roles' together, then the
 * member's own.
 */
import type { EmulatedChannel, EmulatedGuild, PermissionOverwrite } from './types.js';

/** Discord's permission bits that the emulator checks or sets by default. */
export const Permission = {
  Administrator: 1n << 3n,
  ManageGuild: 1n << 5n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  UseApplicationCommands: 1n << 31n,
} as const;

const ALL = (1n << 54n) - 1n;

/** Every permission bit Discord defines today (through bit 53). */
export const ALL_PERMISSIONS = ALL.toString();

/** What @everyone gets in a new server (Discord's default, 0x0000_0006_3FDF_7EC1 minus a few). */
export const DEFAULT_EVERYONE_PERMISSIONS = '1071698660929';

/** `OverwriteType`: whom an overwrite is for. */
export const OverwriteType = { Role: 0, Member: 1 } as const;

type GuildRoles = Pick<EmulatedGuild, 'id' | 'ownerId' | 'roles'>;

/** `compute_base_permissions`: @everyone, then the member's roles; the owner and Administrator get all. */
export function basePermissions(guild: GuildRoles, userId: string, roleIds: readonly string[]): bigint {
  if (userId === guild.ownerId) return ALL;
  let bits = 0n;
  for (const role of guild.roles) {
    if (role.id === guild.id || roleIds.includes(role.id)) bits |= BigInt(role.permissions);
  }
  return bits & Permission.Administrator ? ALL : bits;
}

/** `compute_overwrites`: the channel's overwrites applied to base permissions. */
export function applyOverwrites(
  base: bigint,
  guildId: string,
  overwrites: readonly PermissionOverwrite[],
  userId: string,
  roleIds: readonly string[],
): bigint {
  if (base & Permission.Administrator) return ALL;
  let bits = base;
  const everyone = overwrites.find((o) => o.type === OverwriteType.Role && o.id === guildId);
  if (everyone) bits = (bits & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of overwrites) {
    if (o.type !== OverwriteType.Role || o.id === guildId || !roleIds.includes(o.id)) continue;
    allow |= BigInt(o.allow);
    deny |= BigInt(o.deny);
  }
  bits = (bits & ~deny) | allow;
  const member = overwrites.find((o) => o.type === OverwriteType.Member && o.id === userId);
  if (member) bits = (bits & ~BigInt(member.deny)) | BigInt(member.allow);
  return bits;
}

/** `compute_permissions`: a member's permissions in one channel of the guild. */
export function channelPermissions(guild: GuildRoles, channel: Pick<EmulatedChannel, 'permissionOverwrites'>, userId: string, roleIds: readonly string[]): bigint {
  return applyOverwrites(basePermissions(guild, userId, roleIds), guild.id, channel.permissionOverwrites ?? [], userId, roleIds);
}

/** Guild-level permissions of a member, as the decimal string Discord sends. */
export function memberPermissions(guild: GuildRoles, userId: string, roleIds: string[]): string {
  return basePermissions(guild, userId, roleIds).toString();
}

export function hasPermissions(permissions: string, required: string): boolean {
  const have = BigInt(permissions);
  if (have & Permission.Administrator) return true;
  const need = BigInt(required);
  return (have & need) === need;
}

/** Whether the bit set `permissions` holds every bit of `bits`. */
export const holds = (permissions: bigint, bits: bigint): boolean => (permissions & bits) === bits;
