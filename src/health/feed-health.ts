/**
 * What is wrong with a feed, from what the bot already knows: its channel no longer exists here
 * (the Guilds-intent cache, or Discord's REST list in HTTP mode), it has not posted for longer
 * than the server's threshold (`/feedbot health threshold`), or its state is not `activo`.
 * Pure rules over a HealthView, so the list, the delete confirmation and the tests agree.
 */
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { ChannelDirectory } from '../bot/channel-directory.js';
import type { MessageKey, Translator } from '../i18n/index.js';
import { DEFAULT_STALE_AFTER_DAYS } from '../settings/schema.js';
import type { GuildSettingsStore } from '../settings/store.js';

export type Feed = FeedListItem;
export type FeedWarning = 'channelMissing' | 'stale' | 'inactive';

/** Every warning, in the order they are shown. */
const FEED_WARNINGS: readonly FeedWarning[] = ['channelMissing', 'stale', 'inactive'];

export interface HealthView {
  /** Whether the channel exists in this server; undefined when the channel list is unknown. */
  channelExists(id: string): boolean | undefined;
  now: number;
  staleAfterDays: number;
}

const DAY_MS = 86_400_000;
/** The one state the API documents as forwarding; anything else (paused, unknown) is inactive. */
const ACTIVE_STATE = 'activo';
/**
 * How long healthView waits for the channel list in HTTP mode before going on without it (the
 * interaction is deferred meanwhile); over the gateway the cache answers at once.
 */
export const HEALTH_CHANNELS_WAIT_MS = 2_500;

export function feedWarnings(feed: Feed, view: HealthView): FeedWarning[] {
  const warnings: FeedWarning[] = [];
  if (view.channelExists(feed.canal) === false) warnings.push('channelMissing');
  const inactive = feed.estado !== ACTIVE_STATE;
  // A paused feed is expected not to post: "inactive" already says why, "stale" would be noise.
  // A feed that never posted (ultimoPost null) has no age the list can tell, so it is not stale.
  if (!inactive && isStale(feed.ultimoPost, view)) warnings.push('stale');
  if (inactive) warnings.push('inactive');
  return warnings;
}

function isStale(ultimoPost: string | null, view: HealthView): boolean {
  if (!ultimoPost) return false;
  const at = Date.parse(ultimoPost);
  return !Number.isNaN(at) && view.now - at > view.staleAfterDays * DAY_MS;
}

/** What a health view is read from: the guild's settings and channel list, and the clock. */
interface HealthSources {
  settings: Pick<GuildSettingsStore, 'get'>;
  channels: Pick<ChannelDirectory, 'channelIds'>;
  now?: () => number;
}

/**
 * The guild's threshold and channel list, read once for a whole list of feeds. `feeds`, when
 * given, are the ones about to be judged: in HTTP mode a channel missing from a list fetched more
 * than a few seconds ago is looked up again before a feed is marked (see ChannelDirectory).
 * `staleAfterDays`: the threshold when the caller has read the settings already (a sweep).
 */
export async function healthView(sources: HealthSources, guildId: string, feeds: readonly Feed[] = [], staleAfterDays?: number): Promise<HealthView> {
  const [days, channels] = await Promise.all([
    staleAfterDays ?? sources.settings.get(guildId).then((s) => s.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS),
    sources.channels.channelIds(guildId, HEALTH_CHANNELS_WAIT_MS, feeds.map((f) => f.canal)),
  ]);
  return { channelExists: (id) => (channels ? channels.has(id) : undefined), now: (sources.now ?? Date.now)(), staleAfterDays: days };
}

export const WARNING_ICONS: Readonly<Record<FeedWarning, string>> = {
  channelMissing: '⚠️',
  stale: '⏳',
  inactive: '⏸️',
};

const WARNING_KEYS: Readonly<Record<FeedWarning, MessageKey>> = {
  channelMissing: 'health.warning.channelMissing',
  stale: 'health.warning.stale',
  inactive: 'health.warning.inactive',
};

/** One warning as icon + words: `⏳ No post for over 7 days`. */
export function warningLabel(t: Translator, warning: FeedWarning, staleAfterDays = DEFAULT_STALE_AFTER_DAYS): string {
  return `${WARNING_ICONS[warning]} ${t(WARNING_KEYS[warning], { days: staleAfterDays })}`;
}

/**
 * The warnings as one line for an embed (`⚠️ Channel deleted · ⏸️ Not active`), or undefined when
 * the feed is healthy. `staleAfterDays` words the stale warning (default: the default threshold).
 */
export function warningText(t: Translator, warnings: readonly FeedWarning[], staleAfterDays?: number): string | undefined {
  if (warnings.length === 0) return undefined;
  return FEED_WARNINGS.filter((w) => warnings.includes(w))
    .map((w) => warningLabel(t, w, staleAfterDays))
    .join(' · ');
}
