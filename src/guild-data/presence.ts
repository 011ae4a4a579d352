/**
 * Whether the bot is still in a guild, asked by the retention sweep before it deletes anything
 * (retention.ts): the bot may have been added back while nobody was listening.
 */
import { DiscordAPIError, RESTJSONErrorCodes, Routes, ShardClientUtil, Status, type Client, type REST } from 'discord.js';
import type { Presence } from './retention.js';

/**
 * Over the gateway: the guild is in the cache of the shard that holds it. A guild whose shard this
 * process does not run is left to the process that does; a shard of ours not ready yet (start-up,
 * reconnecting) may not have its guilds back: unknown until it is.
 */
export function gatewayPresence(client: Client): (guildId: string) => Promise<Presence> {
  return async (guildId) => {
    if (client.guilds.cache.has(guildId)) return 'present';
    const shardId = ShardClientUtil.shardIdForGuildId(guildId, client.options.shardCount ?? 1);
    const shard = client.ws.shards.get(shardId);
    if (!shard) return 'notMine';
    return shard.status === Status.Ready ? 'absent' : 'unknown';
  };
}

/** HTTP mode has no cache: Discord's answer to `GET /guilds/{id}` (10004 Unknown Guild or 50001 Missing Access: gone). */
export function restPresence(client: { rest: Pick<REST, 'get'> }): (guildId: string) => Promise<Presence> {
  return async (guildId) => {
    try {
      await client.rest.get(Routes.guild(guildId));
      return 'present';
    } catch (error) {
      if (error instanceof DiscordAPIError && (error.code === RESTJSONErrorCodes.UnknownGuild || error.code === RESTJSONErrorCodes.MissingAccess)) return 'absent';
      return 'unknown';
    }
  };
}
