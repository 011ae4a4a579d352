/**
 * Every gateway event the bot acts on without being asked, as `src/commands.ts` lists the
 * commands: part of the composition root with app.ts, which subscribes them over the gateway
 * (`listenTo`). HTTP mode gets no gateway events; what these notice is noticed there later
 * (`/feed list`, the guild reconciler).
 */
import type { AnyGatewayListener } from './bot/gateway-listeners.js';
import type { BotServices } from './interactions/context.js';
import { guildJoined, guildLeft } from './guild-data/watch.js';
import type { GuildDataRetention } from './guild-data/retention.js';
import { channelDeleted } from './health/channel-watch.js';
import type { SlotLease } from './leases/lease.js';
import { roleDeleted } from './settings/role-watch.js';

/** What the listeners are handed: the bot's services, the lease the processes share, the retention. */
type ListenerDeps = Omit<BotServices, 'guildData'> & {
  lease: SlotLease;
  guildData: Pick<GuildDataRetention, 'left' | 'back'>;
};

export const gatewayListeners: readonly AnyGatewayListener<ListenerDeps>[] = [channelDeleted, roleDeleted, guildLeft, guildJoined];
