/**
 * Over the gateway, a channel deleted in Discord is known at once (ChannelDelete, Guilds intent):
 * when feeds of a guild with a key still forward into it, the audit channel gets one post listing
 * them (deleted-channels.ts). The feed list is asked of the API (within the request budget), never
 * taken from the feeds cache; any failure is logged, never thrown: the channel is then reported by
 * `/feed list` when it notices the feeds.
 */
import { ChannelType, Events, type DMChannel, type NonThreadGuildBasedChannel } from 'discord.js';
import type { FeedApiClient } from '../api/client.js';
import type { KeyStore } from '../keys/store.js';
import { firstToAct, type SlotLease } from '../leases/lease.js';
import { reportDeletedChannel, type DeletedChannelDeps } from './deleted-channels.js';
import type { GatewayListener } from '../bot/gateway-listeners.js';

/** Every process holding the shard receives the event: one of them looks the feeds up. */
const EVENT_LEASE_MS = 15 * 60_000;

interface ChannelWatchDeps extends DeletedChannelDeps {
  api: FeedApiClient;
  keys: KeyStore;
  /** Shared by the processes (src/leases/); the settings' record of reported channels still decides alone when it is absent or down. */
  lease?: SlotLease;
}

/** Reports feeds left pointing at a deleted channel; resolves when done (tests wait for it). */
async function onChannelDeleted(deps: ChannelWatchDeps, channel: DMChannel | NonThreadGuildBasedChannel): Promise<void> {
  // No feed forwards into a DM or a category: nothing to look up, no request spent.
  if (channel.isDMBased() || channel.type === ChannelType.GuildCategory) return;
  const guildId = channel.guildId;
  try {
    if (!(await firstToAct(deps.lease, `channel-deleted:${channel.id}`, EVENT_LEASE_MS))) return;
    const stored = await deps.keys.get(guildId);
    if (!stored) return;
    // Fresh, not from the feeds cache: another process holding this shard (a deploy overlapping old
    // and new) may have created a feed into this channel since this process's list was cached.
    // A channel deletion is rare; one request for it is cheap.
    const list = await deps.api.listFeeds({ apiKey: stored.apiKey, guildId }, { fresh: true });
    const feeds = list.feeds.filter((feed) => feed.canal === channel.id);
    await reportDeletedChannel(deps, guildId, { id: channel.id, name: channel.name }, feeds);
  } catch (error) {
    deps.logger.warn({ err: error, guildId, channelId: channel.id }, 'could not check the feeds of a deleted channel');
  }
}

/** A deleted channel that feeds forward into: one audit post. HTTP mode has no gateway events (/feed list notices it there). */
export const channelDeleted: GatewayListener<Events.ChannelDelete, ChannelWatchDeps> = {
  event: Events.ChannelDelete,
  component: 'channel-watch',
  span: 'channel_deleted',
  attributes: (channel) => ({ 'discord.channel.id': channel.id }),
  run: onChannelDeleted,
};
