/**
 * Over the gateway, the bot's removal from a server (GUILD_DELETE without `unavailable`: discord.js
 * emits guildDelete, and guildUnavailable for an outage, which changes nothing here) starts its
 * retention; its return (GUILD_CREATE for a guild not in the cache: guildCreate) ends it.
 */
import { Events, type Guild } from 'discord.js';
import type { GatewayListener } from '../bot/gateway-listeners.js';
import type { Logger } from '../logger.js';
import type { GuildDataRetention } from './retention.js';

interface MembershipDeps {
  guildData: Pick<GuildDataRetention, 'left' | 'back'>;
  logger: Logger;
}

/** Removed from a server: its data goes after the retention. */
export const guildLeft: GatewayListener<Events.GuildDelete, MembershipDeps> = {
  event: Events.GuildDelete,
  component: 'guild-data',
  run: ({ guildData, logger }, guild: Guild) =>
    guildData.left(guild.id).catch((error: unknown) => logger.warn({ err: error, guildId: guild.id }, 'could not schedule the deletion of the data of a guild the bot left')),
};

/** Added back before the retention ran out: nothing lost. */
export const guildJoined: GatewayListener<Events.GuildCreate, MembershipDeps> = {
  event: Events.GuildCreate,
  component: 'guild-data',
  run: ({ guildData, logger }, guild: Guild) =>
    guildData.back(guild.id).catch((error: unknown) => logger.warn({ err: error, guildId: guild.id }, 'could not keep the data of a guild the bot was added back to')),
};
