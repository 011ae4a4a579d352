/**
 * One guild as the bot sees it for the audit channel: roles, the bot's own member, channels with
 * their permission overwrites. Over the gateway it is handed to discord.js as the READY and
 * GUILD_CREATE packets the Guilds intent delivers (the cache the bot reads then); in HTTP mode
 * there is no cache, and Discord's REST answers for it come from the recorder (GET roles, the
 * bot's member, a channel, /users/@me). Audit posts are answered like Discord, or refused.
 */
import { ChannelType, type Client, type OverwriteType } from 'discord.js';
import type { RecordedRequest, RestRecorder } from '@feedbot/discord-emulator/testing';

export const BOT_ID = '1200000000000000001';
export const BOT_ROLE_ID = '1500000000000000001';
export const AUDIT_CHANNEL_ID = '1300000000000000777';

export interface WorldOverwrite {
  id: string;
  type: OverwriteType;
  allow?: bigint;
  deny?: bigint;
}

export interface World {
  guildId: string;
  /** The @everyone role's permissions. */
  everyone: bigint;
  /** The bot's own role (BOT_ROLE_ID). */
  botRole: bigint;
  channels: { id: string; name: string; overwrites?: WorldOverwrite[] }[];
  /** Roles besides @everyone and the bot's (no permissions of their own). */
  roles?: { id: string; name: string }[];
  /** Community server with this preferred locale (it then decides the posts' language). */
  community?: string;
}

interface WithPacketHandler {
  ws: { handlePacket(packet: { t: string; d: unknown }, shard: { id: number; checkReady?: () => void }): boolean };
}

const user = { id: BOT_ID, username: 'feedbot', discriminator: '0', global_name: null, avatar: null, bot: true };

const overwritePayload = (o: WorldOverwrite) => ({ id: o.id, type: o.type, allow: String(o.allow ?? 0n), deny: String(o.deny ?? 0n) });

function rolesPayload(w: World) {
  const role = (id: string, name: string, permissions: bigint, position: number) => ({
    id,
    name,
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: String(permissions),
    managed: false,
    mentionable: false,
    flags: 0,
  });
  return [role(w.guildId, '@everyone', w.everyone, 0), role(BOT_ROLE_ID, 'feedbot', w.botRole, 1), ...(w.roles ?? []).map((r, i) => role(r.id, r.name, 0n, i + 2))];
}

const memberPayload = { user, nick: null, avatar: null, roles: [BOT_ROLE_ID], joined_at: '2026-01-01T00:00:00.000Z', deaf: false, mute: false, flags: 0 };

function channelPayload(w: World, c: World['channels'][number], position: number) {
  return { id: c.id, type: ChannelType.GuildText, name: c.name, position, guild_id: w.guildId, parent_id: null, permission_overwrites: (c.overwrites ?? []).map(overwritePayload) };
}

/** The gateway's view: the bot logged in, and the guild in discord.js's cache. */
export function loadIntoCache(client: Client, w: World): void {
  const ws = (client as unknown as WithPacketHandler).ws;
  ws.handlePacket({ t: 'READY', d: { v: 10, user, guilds: [], session_id: 'test', application: { id: BOT_ID, flags: 0 } } }, { id: 0, checkReady: () => undefined });
  ws.handlePacket(
    {
      t: 'GUILD_CREATE',
      d: {
        id: w.guildId,
        name: 'audit guild',
        owner_id: '1400000000000000009',
        unavailable: false,
        member_count: 2,
        preferred_locale: w.community ?? 'en-US',
        features: w.community ? ['COMMUNITY'] : [],
        roles: rolesPayload(w),
        members: [memberPayload],
        channels: w.channels.map((c, i) => channelPayload(w, c, i)),
        emojis: [],
        stickers: [],
        threads: [],
      },
    },
    { id: 0 },
  );
}

/** A Discord error answer, as discord.js reads it. */
export function discordError(status: number, code: number, message: string): Response {
  return Response.json({ code, message }, { status });
}

/** Answers an audit post: undefined lets it through, a Response (discordError) refuses it. */
export type PostAnswer = (call: RecordedRequest) => Response | undefined;

/** Discord's REST answers for the world (HTTP mode's lookups); `post` may refuse audit posts. */
export function answerRest(recorder: RestRecorder, w: World, opts: { post?: PostAnswer } = {}): void {
  recorder.respond = (call) => {
    if (call.method === 'POST' && /^\/channels\/\d+\/messages$/.test(call.path)) return opts.post?.(call) ?? Response.json({ id: '1600000000000000001' });
    if (call.method !== 'GET') return undefined;
    if (call.path === '/users/@me') return Response.json(user);
    if (call.path === `/guilds/${w.guildId}/roles`) return Response.json(rolesPayload(w));
    if (call.path === `/guilds/${w.guildId}/members/${BOT_ID}`) return Response.json(memberPayload);
    const channel = w.channels.find((c) => call.path === `/channels/${c.id}`);
    if (channel) return Response.json(channelPayload(w, channel, 0));
    return undefined;
  };
}

/** The audit posts the bot sent, oldest first. */
export function auditPosts(recorder: RestRecorder, channelId = AUDIT_CHANNEL_ID): RecordedRequest[] {
  return recorder.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`);
}

export type AuditPostBody = {
  embeds: { title?: string; description?: string; color?: number; fields?: { name: string; value: string; inline?: boolean }[]; timestamp?: string }[];
  allowed_mentions: { parse: string[] };
};
