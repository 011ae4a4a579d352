/**
 * The filters of `/feed list` (canal, cuenta, estado, problemas), applied in that order to the
 * feeds with their warnings. When they leave nothing, the result says which filter did, so the
 * answer can explain it instead of an unexplained empty list.
 */
import { FEED_STATES } from '@feedbot/feed-api-contract';
import { InvalidOptionError } from '../../src/interactions/errors.js';
import { parseAccount } from '../../src/interactions/options.js';
import { t as translate, type Lang, type MessageKey } from '../../src/i18n/index.js';
import { truncate } from '../../src/render/text.js';
import { feedWarnings, type Feed, type FeedWarning, type HealthView } from '../../src/health/feed-health.js';

export interface FeedFilters {
  channelId?: string | undefined;
  /** Part of the account name, lowercase (`nasa` matches `@NASA` and `nasa_jpl`). */
  cuenta?: string | undefined;
  /** A state as the API writes it, lowercase (`activo`, `pausado`, or one the bot does not know). */
  estado?: string | undefined;
  /** Only feeds with at least one warning. */
  problemas?: boolean | undefined;
}

type FilterName = 'canal' | 'cuenta' | 'estado' | 'problemas';

export interface FeedRow {
  feed: Feed;
  warnings: FeedWarning[];
}

export interface FilteredFeeds {
  rows: FeedRow[];
  /** The filter that left no feed, when the server has feeds but none matched. */
  emptiedBy?: FilterName;
  /** With `emptiedBy`: how many feeds the other filters match without it (0 when it is the only one). */
  matchWithout: number;
}

/** A state filter fits a button's custom_id: up to 20 of these characters, never `-` alone. */
const STATE_TOKEN = /^(?!-$)[a-z0-9_.-]{1,20}$/;
const LANGS: readonly Lang[] = ['en', 'es'];

/**
 * The API value a typed state stands for: a known state by its value or by its label in either
 * language (`Paused`, `pausado`), anything else as typed (lowercase), so states the bot does not
 * know can still be filtered on.
 */
export function parseStateFilter(input: string): string {
  const typed = input.trim().toLowerCase();
  const known = FEED_STATES.find(
    (state) => state === typed || LANGS.some((lang) => translate(lang, `state.${state}` as MessageKey).toLowerCase() === typed),
  );
  const value = known ?? typed;
  if (!STATE_TOKEN.test(value)) throw new InvalidOptionError('health.list.badState', { value: truncate(input.replace(/`/g, "'"), 40) || ' ' });
  return value;
}

/** The account filter: a name, `@name` or profile URL, compared lowercase as a part of the name. */
export function parseAccountFilter(input: string): string {
  return parseAccount(input).toLowerCase();
}

type Step = readonly [FilterName, (row: FeedRow) => boolean];

/** `view` undefined: no feed has warnings (a caller that does not judge health). */
export function filterFeeds(feeds: readonly Feed[], filters: FeedFilters, view: HealthView | undefined): FilteredFeeds {
  const { channelId, cuenta, estado, problemas } = filters;
  const candidates: (Step | undefined)[] = [
    channelId === undefined ? undefined : ['canal', (r) => r.feed.canal === channelId],
    cuenta === undefined ? undefined : ['cuenta', (r) => r.feed.cuenta.toLowerCase().includes(cuenta)],
    estado === undefined ? undefined : ['estado', (r) => r.feed.estado.toLowerCase() === estado],
    problemas ? ['problemas', (r) => r.warnings.length > 0] : undefined,
  ];
  const steps = candidates.filter((step) => step !== undefined);
  const all = feeds.map((feed) => ({ feed, warnings: view ? feedWarnings(feed, view) : [] }));
  let rows = all;
  for (const [name, keep] of steps) {
    const kept = rows.filter(keep);
    if (kept.length === 0 && rows.length > 0) {
      const others = steps.filter(([other]) => other !== name);
      const matchWithout = others.length ? all.filter((r) => others.every(([, k]) => k(r))).length : 0;
      return { rows: kept, emptiedBy: name, matchWithout };
    }
    rows = kept;
  }
  return { rows, matchWithout: 0 };
}
