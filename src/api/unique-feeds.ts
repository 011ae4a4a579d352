/**
 * A GET /feeds answer with each feed id once. The API is not supposed to list an id twice, but
 * when it does, everything the bot builds from the list breaks or disagrees: Discord refuses a
 * select whose options repeat a value (400 50035 SELECT_COMPONENT_OPTION_VALUE_DUPLICATED), a
 * bulk delete would send one DELETE twice, counts would count a feed twice. The client applies
 * this once, where the answer is read (FeedApiClient.listFeeds, before the cache keeps it), so
 * every reader — list, panel, delete picker, card, autocomplete, export, sweeps — sees one list.
 */
import type { FeedListResponse } from '@feedbot/feed-api-contract';

interface UniqueFeeds {
  /** The list with the first feed of each id, in the API's order; `total` less the dropped ones. */
  list: FeedListResponse;
  /** Each id that was listed more than once (once, in order of first appearance). */
  repeatedIds: number[];
}

export function uniqueFeeds(list: FeedListResponse): UniqueFeeds {
  const seen = new Set<number>();
  const repeated = new Set<number>();
  const feeds = list.feeds.filter((feed) => {
    if (seen.has(feed.id)) {
      repeated.add(feed.id);
      return false;
    }
    seen.add(feed.id);
    return true;
  });
  if (repeated.size === 0) return { list, repeatedIds: [] };
  const dropped = list.feeds.length - feeds.length;
  return { list: { ...list, feeds, total: Math.max(0, list.total - dropped) }, repeatedIds: [...repeated] };
}
