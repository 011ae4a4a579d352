/**
 * One audit post per deleted channel that feeds still forward into. Over the gateway the
 * ChannelDelete event tells at once (channel-watch.ts); in HTTP mode, or for a deletion while
 * the bot was away, `/feed list` notices the feed whose channel is gone. Either way the channel is
 * remembered in the guild's settings (`reportedDeletedChannels`), so it is reported once.
 */
import type { AuditTrail, FeedSummary } from '../audit/events.js';
import type { Logger } from '../logger.js';
import type { GuildSettingsStore } from '../settings/store.js';
import type { Feed, HealthView } from './feed-health.js';

/** The settings schema keeps at most this many; the oldest are forgotten first. */
const MAX_REMEMBERED = 500;
const SNOWFLAKE = /^\d{1,32}$/;

export interface DeletedChannelDeps {
  settings: GuildSettingsStore;
  audit: AuditTrail;
  logger: Logger;
}

interface DeletedChannel {
  id: string;
  /** Known over the gateway (the deleted channel's last name); absent when noticed later. */
  name?: string | undefined;
}

export function feedSummary(feed: Feed): FeedSummary {
  return { id: feed.id, cuenta: feed.cuenta, canalId: feed.canal, tipos: feed.tipos };
}

/**
 * Records the `channelDeleted` audit event unless this channel was already reported; returns
 * whether it did. Never throws: a storage failure is logged and the report waits for next time.
 */
export async function reportDeletedChannel(
  deps: DeletedChannelDeps,
  guildId: string,
  channel: DeletedChannel,
  feeds: readonly Feed[],
  locale?: string,
): Promise<boolean> {
  if (feeds.length === 0) return false;
  try {
    if ((await deps.settings.get(guildId)).reportedDeletedChannels.includes(channel.id)) return false;
    let first = false;
    await deps.settings.update(guildId, (current) => {
      // Checked again on the record the update applies to (the last attempt decides when the
      // store retries): two notices at once, in one process or two, report once.
      first = !current.reportedDeletedChannels.includes(channel.id);
      if (!first) return current;
      return { ...current, reportedDeletedChannels: [...current.reportedDeletedChannels, channel.id].slice(-MAX_REMEMBERED) };
    });
    if (!first) return false;
    deps.audit.record(
      guildId,
      { kind: 'channelDeleted', channelId: channel.id, ...(channel.name ? { channelName: channel.name } : {}), feeds: feeds.map(feedSummary) },
      locale,
    );
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, guildId, channelId: channel.id }, 'could not report a deleted channel');
    return false;
  }
}

/**
 * Reports every channel the view says is gone that some of `feeds` forward into (once each).
 * Only a known channel list counts: when it is unknown nothing is missing.
 */
export async function reportNoticedDeletions(
  deps: DeletedChannelDeps,
  guildId: string,
  feeds: readonly Feed[],
  view: HealthView,
  locale?: string,
): Promise<void> {
  const byChannel = new Map<string, Feed[]>();
  for (const feed of feeds) {
    // Only an id can be remembered; a malformed `canal` is marked in the list but not reported.
    if (!SNOWFLAKE.test(feed.canal) || view.channelExists(feed.canal) !== false) continue;
    byChannel.set(feed.canal, [...(byChannel.get(feed.canal) ?? []), feed]);
  }
  for (const [id, gone] of byChannel) await reportDeletedChannel(deps, guildId, { id }, gone, locale);
}
