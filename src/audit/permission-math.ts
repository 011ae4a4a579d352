/**
 * A member's permissions in a guild channel from raw Discord data, by Discord's documented
 * algorithm (Topics › Permissions): the @everyone role and the member's roles give the base;
 * Administrator allows everything; then the channel's overwrites apply in order: @everyone, the
 * member's roles (all their denies, then all their allows), the member. Used where no gateway
 * cache holds the guild (HTTP-interactions mode); over the gateway discord.js computes the same
 * from its cache (GuildChannel#permissionsFor).
 */
import { OverwriteType, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

export interface PermissionOverwrite {
  id: string;
  type: OverwriteType;
  allow: bigint;
  deny: bigint;
}

export interface MemberInChannel {
  guildId: string;
  memberId: string;
  memberRoleIds: readonly string[];
  /** Every role of the guild by id (the @everyone role's id is the guild's). */
  rolePermissions: ReadonlyMap<string, bigint>;
  /** The channel's permission_overwrites; undefined when the channel could not be read. */
  overwrites: readonly PermissionOverwrite[] | undefined;
}

/** The guild-wide permissions: @everyone and the member's roles (the guild owner's case aside). */
function basePermissions(m: MemberInChannel): bigint {
  let base = m.rolePermissions.get(m.guildId) ?? 0n;
  for (const role of m.memberRoleIds) base |= m.rolePermissions.get(role) ?? 0n;
  return base;
}

export function channelPermissions(m: MemberInChannel): bigint {
  let permissions = basePermissions(m);
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return PermissionsBitField.All;
  // A channel the bot cannot even read: its overwrites are unknown, and View Channel is denied.
  if (m.overwrites === undefined) return permissions & ~PermissionFlagsBits.ViewChannel;
  const apply = (o: { allow: bigint; deny: bigint }) => {
    permissions = (permissions & ~o.deny) | o.allow;
  };
  const everyone = m.overwrites.find((o) => o.type === OverwriteType.Role && o.id === m.guildId);
  if (everyone) apply(everyone);
  const roles = m.overwrites.filter((o) => o.type === OverwriteType.Role && o.id !== m.guildId && m.memberRoleIds.includes(o.id));
  apply(roles.reduce((sum, o) => ({ allow: sum.allow | o.allow, deny: sum.deny | o.deny }), { allow: 0n, deny: 0n }));
  const member = m.overwrites.find((o) => o.type === OverwriteType.Member && o.id === m.memberId);
  if (member) apply(member);
  return permissions;
}
