/**
 * Guilds the test bot "is in", with their channels (text ones unless said otherwise), as the
 * Guilds intent would have loaded them at login. The unit harness builds interactions from raw payloads and never connects a
 * gateway, so `interaction.guild` is null and no channel is cached until a guild is handed over
 * here. The GUILD_CREATE goes through discord.js's own packet handler (the way
 * @feedbot/discord-emulator/testing's dispatchInteraction hands over interactions), so the cache
 * is filled exactly as in production: the guild in `client.guilds`, its channels in both
 * `guild.channels` and `client.channels`.
 */
import { ChannelType, type Client } from 'discord.js';

interface WithPacketHandler {
  ws: { handlePacket(packet: { t: string; d: unknown }, shard: { id: number }): boolean };
}

/** A channel by id (a text channel), or by id and type. */
export type KnownChannel = string | { id: string; type: ChannelType };

/** A minimal GUILD_CREATE `d`: the fields discord.js reads to build a guild and its channels. */
function guildCreate(guildId: string, channels: readonly KnownChannel[]): Record<string, unknown> {
  return {
    id: guildId,
    name: `guild ${guildId.slice(-4)}`,
    owner_id: '1400000000000000009',
    unavailable: false,
    member_count: 1,
    roles: [],
    emojis: [],
    stickers: [],
    members: [],
    threads: [],
    features: [],
    channels: channels
      .map((c) => (typeof c === 'string' ? { id: c, type: ChannelType.GuildText } : c))
      .map(({ id, type }, position) => ({ id, type, name: `channel-${id.slice(-4)}`, position, permission_overwrites: [] })),
  };
}

/** Makes `client` know `guildId` with these channels (idempotent for a new id). */
export function knowGuild(client: Client, guildId: string, channels: readonly KnownChannel[]): void {
  (client as unknown as WithPacketHandler).ws.handlePacket({ t: 'GUILD_CREATE', d: guildCreate(guildId, channels) }, { id: 0 });
}
