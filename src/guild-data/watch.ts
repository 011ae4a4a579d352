/**
 * Over the gateway, the bot's removal from a server (GUILD_DELETE without `unavailable`: discord.js
 * emits guildDelete, and guildUnavailable for an outage, which changes nothing here) starts its
 * retention; its return (GUILD_CREATE for a guild not in the cache: guildCreate) ends it.
 */
import { Events, type Client, type Guild } from 'discord.js';
import type { Logger } from '../logger.js';
import type { GuildDataRetention } from './retention.js';

interface MembershipWatch {
  stop(): void;
}

export function watchGuildMembership(client: Client, retention: Pick<GuildDataRetention, 'left' | 'back'>, logger: Logger): MembershipWatch {
  const failed = (guildId: string, what: string) => (error: unknown) => logger.warn({ err: error, guildId }, what);
  const removed = (guild: Guild) => void retention.left(guild.id).catch(failed(guild.id, 'could not schedule the deletion of the data of a guild the bot left'));
  const added = (guild: Guild) => void retention.back(guild.id).catch(failed(guild.id, 'could not keep the data of a guild the bot was added back to'));
  client.on(Events.GuildDelete, removed);
  client.on(Events.GuildCreate, added);
  return {
    stop() {
      client.off(Events.GuildDelete, removed);
      client.off(Events.GuildCreate, added);
    },
  };
}
