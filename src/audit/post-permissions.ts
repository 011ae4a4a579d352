/**
 * Whether the bot can post an audit embed in a channel: View Channel, Send Messages and Embed
 * Links, and which of them it lacks there. Over the gateway the answer comes from discord.js's
 * cache (the Guilds intent keeps the guild's roles, channels and the bot's own member). In
 * HTTP-interactions mode there is no cache: it is computed from Discord's REST API (the guild's
 * roles, the bot's member, the channel's overwrites: three GETs, each validated; the channel's is
 * skipped when the caller has read it already) by Discord's documented algorithm (permission-math.ts).
 */
import { DiscordAPIError, PermissionFlagsBits, Routes, type Client } from 'discord.js';
import { z } from 'zod';
import { channelPermissions } from './permission-math.js';

const POST_PERMISSIONS = {
  ViewChannel: PermissionFlagsBits.ViewChannel,
  SendMessages: PermissionFlagsBits.SendMessages,
  EmbedLinks: PermissionFlagsBits.EmbedLinks,
} as const;

export type PostPermission = keyof typeof POST_PERMISSIONS;

/**
 * The permissions the bot lacks to post embeds in `channelId`, in POST_PERMISSIONS order (none: it
 * can). `channel`: Discord's answer to GET /channels/{id} when the caller already has it.
 */
export async function missingPostPermissions(client: Client, guildId: string, channelId: string, channel?: unknown): Promise<PostPermission[]> {
  const permissions = fromCache(client, guildId, channelId) ?? (await fromRest(client, guildId, channelId, channel));
  return (Object.keys(POST_PERMISSIONS) as PostPermission[]).filter((p) => (permissions & POST_PERMISSIONS[p]) === 0n);
}

function fromCache(client: Client, guildId: string, channelId: string): bigint | undefined {
  // `members.me` reads client.user, which only a gateway login sets.
  if (!client.user) return undefined;
  const guild = client.guilds.cache.get(guildId);
  const channel = guild?.channels.cache.get(channelId);
  const me = guild?.members.me;
  if (!channel || !me) return undefined;
  return channel.permissionsFor(me)?.bitfield;
}

const Snowflake = z.string().regex(/^\d{1,32}$/);
const Bits = z
  .string()
  .regex(/^\d{1,40}$/)
  .transform((s) => BigInt(s));
const RolesSchema = z.array(z.looseObject({ id: Snowflake, permissions: Bits }));
const MemberSchema = z.looseObject({ roles: z.array(Snowflake) });
const ChannelSchema = z.looseObject({
  permission_overwrites: z
    .array(z.looseObject({ id: Snowflake, type: z.union([z.literal(0), z.literal(1)]), allow: Bits, deny: Bits }))
    .default([]),
});
const UserSchema = z.looseObject({ id: Snowflake });

/** 50001 Missing Access: the bot cannot see the channel at all. */
const MISSING_ACCESS = 50001;

async function fromRest(client: Client, guildId: string, channelId: string, channel: unknown): Promise<bigint> {
  const botId = await ownUserId(client);
  const [roles, member, overwrites] = await Promise.all([
    client.rest.get(Routes.guildRoles(guildId)).then((body) => RolesSchema.parse(body)),
    client.rest.get(Routes.guildMember(guildId, botId)).then((body) => MemberSchema.parse(body)),
    (channel === undefined ? client.rest.get(Routes.channel(channelId)) : Promise.resolve(channel)).then(
      (body) => ChannelSchema.parse(body).permission_overwrites,
      (error: unknown) => {
        if (error instanceof DiscordAPIError && error.code === MISSING_ACCESS) return undefined;
        throw error;
      },
    ),
  ]);
  return channelPermissions({
    guildId,
    memberId: botId,
    memberRoleIds: member.roles,
    rolePermissions: new Map(roles.map((r) => [r.id, r.permissions])),
    overwrites,
  });
}

const ownIds = new WeakMap<Client, Promise<string>>();

/** The bot's user id: the gateway's READY has it; without one, GET /users/@me once per client. */
function ownUserId(client: Client): Promise<string> {
  if (client.user) return Promise.resolve(client.user.id);
  let id = ownIds.get(client);
  if (!id) {
    id = client.rest.get(Routes.user()).then((body) => UserSchema.parse(body).id);
    // A failed lookup is asked again next time.
    id.catch(() => ownIds.delete(client));
    ownIds.set(client, id);
  }
  return id;
}
