/**
 * A sweep's GET /feeds reduced to what a change is reported for (record.ts FeedMark), by the same
 * rules as `/feed list`'s marks (feed-health.ts), and the comparison with the previous sweep's.
 * Pure: the sweep (sweep.ts) decides what to post from what this returns.
 */
import { feedWarnings, type Feed, type HealthView } from '../feed-health.js';
import { FEED_KEY, type FeedMark, type Snapshot } from './record.js';

type FeedChangeKind = 'inactive' | 'active' | 'quiet' | 'posting';

export interface FeedChange {
  kind: FeedChangeKind;
  feedId: number;
}

function markFeed(feed: Feed, view: HealthView): FeedMark {
  const warnings = feedWarnings(feed, view);
  return { active: !warnings.includes('inactive'), quiet: warnings.includes('stale'), channel: feed.canal.slice(0, 40), gone: warnings.includes('channelMissing') };
}

/**
 * The snapshot's feeds, by `String(id)`. An id that does not make a key the record keeps (none the
 * contract allows: a safeguard) is left out of the snapshot, so it alone goes unwatched instead of
 * the record's validation failing the whole sweep, every time, for every feed of the server.
 */
export function feedMarks(feeds: readonly Feed[], view: HealthView): Snapshot['feeds'] {
  return Object.fromEntries(feeds.filter((feed) => FEED_KEY.test(String(feed.id))).map((feed) => [String(feed.id), markFeed(feed, view)]));
}

/**
 * What changed for the feeds present in both sweeps, in feed order. A feed new since the last
 * sweep is its own baseline (creating it was already posted), and a feed gone since is not a change.
 */
export function compareFeeds(previous: Snapshot['feeds'], next: Snapshot['feeds']): FeedChange[] {
  const changes: FeedChange[] = [];
  for (const [id, now] of Object.entries(next)) {
    const before = previous[id];
    if (!before) continue;
    const feedId = Number(id);
    if (before.active !== now.active) changes.push({ kind: now.active ? 'active' : 'inactive', feedId });
    // Only an active feed can be quiet (a paused feed is expected not to post): pausing a quiet
    // feed is reported as paused, not as "posts again".
    if (now.active && before.active && before.quiet !== now.quiet) changes.push({ kind: now.quiet ? 'quiet' : 'posting', feedId });
  }
  return changes;
}

/** How many feeds carry a warning. */
export function warningCount(feeds: Snapshot['feeds']): number {
  return Object.values(feeds).filter((m) => !m.active || m.quiet || m.gone).length;
}
