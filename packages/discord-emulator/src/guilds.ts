/**
 * Configured guilds: validation of the configuration, fixtures for benchmarks (1 to 10,000+
 * guilds), and the objects Discord sends for them (GUILD_CREATE, channels, roles, members).
 * Permission arithmetic is in permissions.ts (re-exported here for existing importers).
 */
import { z } from 'zod';
import type { APIUser } from 'discord-api-types/v10';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission } from './permissions.js';
import { fixedSnowflake, snowflakeTimestamp, DISCORD_EPOCH } from './snowflake.js';
import type { EmulatedGuild, PermissionOverwrite } from './types.js';

export { ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission, hasPermissions, memberPermissions } from './permissions.js';

const Snowflake = z.string().regex(/^\d{15,21}$/, 'must be a snowflake (15–21 digits)');
const PermissionString = z.string().regex(/^\d+$/, 'must be a decimal permission bit set');

export const PermissionOverwriteSchema = z.object({
  id: Snowflake,
  type: z.union([z.literal(0), z.literal(1)]),
  allow: PermissionString.default('0'),
  deny: PermissionString.default('0'),
});

export const EmulatedGuildSchema = z.object({
  id: Snowflake,
  name: z.string().min(2).max(100),
  ownerId: Snowflake,
  locale: z.string().optional(),
  channels: z.array(
    z.object({
      id: Snowflake,
      name: z.string().min(1).max(100),
      type: z.number().int().min(0),
      parentId: Snowflake.optional(),
      position: z.number().int().optional(),
      topic: z.string().max(4096).optional(),
      permissionOverwrites: z.array(PermissionOverwriteSchema).max(100).optional(),
    }),
  ),
  roles: z.array(
    z.object({
      id: Snowflake,
      name: z.string().min(1).max(100),
      permissions: PermissionString,
      position: z.number().int().optional(),
      color: z.number().int().optional(),
    }),
  ),
  members: z
    .array(
      z.object({
        userId: Snowflake,
        username: z.string().min(1).max(32).optional(),
        globalName: z.string().optional(),
        nick: z.string().optional(),
        roles: z.array(Snowflake).optional(),
      }),
    )
    .optional(),
  botRoles: z.array(Snowflake).optional(),
});

export interface NormalizedGuild extends EmulatedGuild {
  locale: string;
  members: NonNullable<EmulatedGuild['members']>;
  botRoles: string[];
}

/** Validates a guild and adds what Discord always has (the @everyone role, a locale). */
export function normalizeGuild(input: EmulatedGuild): NormalizedGuild {
  const guild = EmulatedGuildSchema.parse(input);
  const roles = guild.roles.some((r) => r.id === guild.id)
    ? guild.roles
    : [{ id: guild.id, name: '@everyone', permissions: DEFAULT_EVERYONE_PERMISSIONS, position: 0 }, ...guild.roles];
  const normalized = { ...guild, roles, locale: guild.locale ?? 'en-US', members: guild.members ?? [], botRoles: guild.botRoles ?? [] };
  const unknownRole = normalized.botRoles.find((id) => !roles.some((r) => r.id === id));
  if (unknownRole !== undefined) throw new Error(`guild ${guild.id}: botRoles names unknown role ${unknownRole}`);
  return normalized;
}

export interface GenerateGuildsOptions {
  /** Id of every guild's owner (a user id). */
  ownerId?: string;
  /** Text channels per guild (plus one category). Default 2. */
  textChannels?: number;
  /** Roles besides @everyone. Default 1 (an "Admin" role with Administrator). */
  roles?: number;
  /** Milliseconds after the Discord epoch of the first guild id; guild i gets base + i. */
  baseMs?: number;
  namePrefix?: string;
  locale?: string;
}

/**
 * `count` deterministic guilds. Guild i's id has timestamp `baseMs + i`, so guilds spread evenly
 * over shards (`(id >> 22) % shards`), as real guild ids do.
 */
export function generateGuilds(count: number, opts: GenerateGuildsOptions = {}): EmulatedGuild[] {
  const baseMs = opts.baseMs ?? 200_000_000_000;
  const ownerId = opts.ownerId ?? fixedSnowflake(100_000_000_000, 1);
  const textChannels = opts.textChannels ?? 2;
  const extraRoles = opts.roles ?? 1;
  const guilds: EmulatedGuild[] = [];
  for (let i = 0; i < count; i++) {
    const ms = baseMs + i;
    const id = fixedSnowflake(ms, 0);
    const category = fixedSnowflake(ms, 1);
    const channels: EmulatedGuild['channels'] = [{ id: category, name: 'General', type: 4, position: 0 }];
    for (let c = 0; c < textChannels; c++) {
      channels.push({ id: fixedSnowflake(ms, 2 + c), name: c === 0 ? 'general' : `channel-${c}`, type: 0, parentId: category, position: c });
    }
    const roles: EmulatedGuild['roles'] = [{ id, name: '@everyone', permissions: DEFAULT_EVERYONE_PERMISSIONS, position: 0 }];
    for (let r = 0; r < extraRoles; r++) {
      roles.push({
        id: fixedSnowflake(ms, 1000 + r),
        name: r === 0 ? 'Admin' : `role-${r}`,
        permissions: r === 0 ? Permission.Administrator.toString() : '0',
        position: r + 1,
      });
    }
    guilds.push({ id, name: `${opts.namePrefix ?? 'Guild'} ${i + 1}`, ownerId, locale: opts.locale, channels, roles });
  }
  return guilds;
}

export function makeUser(id: string, username: string, extra: Partial<APIUser> = {}): APIUser {
  return {
    id,
    username,
    discriminator: '0',
    global_name: extra.global_name ?? null,
    avatar: null,
    public_flags: 0,
    ...extra,
  } as APIUser;
}

function isoFromSnowflake(id: string): string {
  const ms = snowflakeTimestamp(id);
  return new Date(Number.isFinite(ms) && ms > Number(DISCORD_EPOCH) ? ms : Date.now()).toISOString();
}

/** The channel object as it appears inside GUILD_CREATE and interaction payloads. */
export function channelPayload(guild: Pick<NormalizedGuild, 'id'>, channel: EmulatedGuild['channels'][number]): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    position: channel.position ?? 0,
    permission_overwrites: (channel.permissionOverwrites ?? []).map(overwritePayload),
    parent_id: channel.parentId ?? null,
    flags: 0,
    guild_id: guild.id,
  };
  if (channel.type === 0 || channel.type === 5 || channel.type === 15) {
    base.topic = channel.topic ?? null;
    base.nsfw = false;
    base.rate_limit_per_user = 0;
    base.last_message_id = null;
  }
  if (channel.type === 2 || channel.type === 13) {
    base.bitrate = 64_000;
    base.user_limit = 0;
    base.rtc_region = null;
  }
  return base;
}

/** An overwrite as Discord sends it: `allow` and `deny` as decimal strings. */
export function overwritePayload(o: PermissionOverwrite): Record<string, unknown> {
  return { id: o.id, type: o.type, allow: o.allow, deny: o.deny };
}

export function rolePayload(role: EmulatedGuild['roles'][number]): Record<string, unknown> {
  return {
    id: role.id,
    name: role.name,
    color: role.color ?? 0,
    colors: { primary_color: role.color ?? 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position ?? 0,
    permissions: role.permissions,
    managed: false,
    mentionable: false,
    flags: 0,
  };
}

export function memberPayload(
  guild: Pick<NormalizedGuild, 'id'>,
  user: APIUser,
  member?: { nick?: string; roles?: string[] },
): Record<string, unknown> {
  return {
    user,
    nick: member?.nick ?? null,
    avatar: null,
    banner: null,
    roles: member?.roles ?? [],
    joined_at: isoFromSnowflake(guild.id),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

/** The guild object itself, as `GET /guilds/{id}` returns it and GUILD_CREATE extends it. */
export function guildPayload(guild: NormalizedGuild): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: guild.ownerId,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: guild.locale,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    max_members: 500_000,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    vanity_url_code: null,
    application_id: null,
    features: [],
    emojis: [],
    stickers: [],
    roles: guild.roles.map(rolePayload),
  };
}

/** The `d` of a GUILD_CREATE dispatch for the bot's initial guild load. */
export function guildCreatePayload(guild: NormalizedGuild, botUser: APIUser): Record<string, unknown> {
  const members = [memberPayload(guild, botUser, { roles: guild.botRoles })];
  for (const m of guild.members) {
    members.push(memberPayload(guild, makeUser(m.userId, m.username ?? `user${m.userId.slice(-4)}`, { global_name: m.globalName ?? null }), m));
  }
  // Added to the guild object rather than spread into a new one: a shard sends thousands of
  // these, and copying 40 properties each time doubled the cost.
  const payload = guildPayload(guild);
  payload.joined_at = members[0]!.joined_at;
  payload.large = false;
  payload.unavailable = false;
  payload.member_count = members.length;
  payload.voice_states = [];
  payload.members = members;
  payload.channels = guild.channels.map((c) => {
    const channel = channelPayload(guild, c);
    // Channels inside GUILD_CREATE carry no guild_id (discord.js fills it in); JSON leaves undefined
    // out, and the object keeps its shape, which `delete` would not.
    channel.guild_id = undefined;
    return channel;
  });
  payload.threads = [];
  payload.presences = [];
  payload.stage_instances = [];
  payload.guild_scheduled_events = [];
  payload.soundboard_sounds = [];
  payload.incidents_data = null;
  payload.lazy = true;
  return payload;
}
