/**
 * One health sweep of one guild: ONE `GET /feeds` through the API client (rate gate, retries and
 * response events apply), reduced to a snapshot (snapshot.ts) and compared with the previous
 * sweep's (store.ts). Each change is recorded on the audit trail once: the record's
 * compare-and-swap decides which sweep found it, so two processes sweeping at once post it once.
 *
 * A guild without an audit channel or a key costs no request; one whose key has fewer than
 * MIN_REMAINING requests left in its window is deferred (its next slot) rather than spending the
 * budget its members' commands need. The first sweep of a guild records a baseline and posts
 * nothing, except what is reported once anyway: a refused key (key-stopped.ts, once per key), a
 * missing scope, a deleted channel not yet reported (deleted-channels.ts, once per channel).
 */
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { FeedApiClient } from '../../api/client.js';
import { ForbiddenError, UnauthorizedError } from '../../api/errors.js';
import type { AuditTrail } from '../../audit/events.js';
import { noticeRejectedKey } from '../../audit/key-stopped.js';
import type { ChannelDirectory } from '../../bot/channel-directory.js';
import type { KeyStore } from '../../keys/store.js';
import { maskKey } from '../../keys/mask.js';
import type { Logger } from '../../logger.js';
import type { Observers } from '../../observers.js';
import { DEFAULT_STALE_AFTER_DAYS } from '../../settings/schema.js';
import type { GuildSettingsStore } from '../../settings/store.js';
import { feedSummary, reportDeletedChannel } from '../deleted-channels.js';
import { healthView, type HealthView } from '../feed-health.js';
import type { KeyState, Snapshot, SweepRecord, SweepResult } from './record.js';
import { compareFeeds, feedMarks, warningCount, type FeedChange } from './snapshot.js';
import type { SweepChangeKind, SweepReport } from './events.js';
import type { SweepStore } from './store.js';
import type { LeaseAnswer } from './lease-watch.js';
import { tracer } from '../../tracing/tracer.js';

/** Below this many requests left in the key's window, a sweep waits for its next slot. */
export const MIN_REMAINING = 10;

/**
 * Whether the key has fewer than MIN_REMAINING requests left in a window that is not over yet:
 * what neither a sweep nor the weekly digest spends, leaving it to the members' commands.
 */
export async function belowRequestFloor(deps: Pick<SweepDeps, 'api' | 'now'>, apiKey: string): Promise<boolean> {
  const gate = await deps.api.gateState(apiKey);
  return gate.remaining !== null && gate.remaining < MIN_REMAINING && gate.resetAt !== null && gate.resetAt.getTime() > deps.now();
}

export interface SweepDeps {
  api: FeedApiClient;
  keys: KeyStore;
  settings: GuildSettingsStore;
  audit: AuditTrail;
  channels: ChannelDirectory;
  store: SweepStore;
  logger: Logger;
  reports: Observers<SweepReport>;
  now: () => number;
}

interface SweepOutcome {
  /**
   * `lease_unavailable`: the store the slot's lease lives in did not answer, so nothing was done.
   * Not a sweep: neither reported (metrics, the `health sweep` line) nor kept in the record; the
   * outage is logged once by lease-watch.ts.
   */
  result: SweepResult | 'lease_unavailable';
  changes: SweepChangeKind[];
}

type Fetched = { key: 'ok'; feeds: FeedListItem[] } | { key: 'unauthorized' } | { key: 'forbidden'; scope: string } | { key: 'error' };

/**
 * `claim`: asked once the guild is found worth a request, before it is sent; false when another
 * process holds this slot (src/leases/), 'unavailable' when the lease's store did not answer
 * (lease-watch.ts), and then nothing is sent.
 */
export function sweepGuild(deps: SweepDeps, guildId: string, claim?: () => Promise<LeaseAnswer>): Promise<SweepOutcome> {
  // Each sweep is a trace of its own: its key store read, feed API request and audit posts are children.
  return tracer().inSpan('health_sweep', { root: true, attributes: { 'discord.guild.id': guildId } }, async (span) => {
    const started = deps.now();
    const outcome = await sweepOnce(deps, guildId, claim).catch((error: unknown): SweepOutcome => {
      deps.logger.warn({ guildId, err: error }, 'health sweep failed');
      return { result: 'error', changes: [] };
    });
    span.set({ 'feedbot.sweep.result': outcome.result, 'feedbot.sweep.changes': outcome.changes.length });
    if (outcome.result === 'error') span.failed('error');
    if (outcome.result === 'lease_unavailable') return outcome;
    for (const kind of outcome.changes) deps.reports.emit({ type: 'change', guildId, kind });
    deps.reports.emit({ type: 'sweep', guildId, result: outcome.result, changes: outcome.changes.length, durationMs: deps.now() - started });
    return outcome;
  });
}

async function sweepOnce(deps: SweepDeps, guildId: string, claim?: () => Promise<LeaseAnswer>): Promise<SweepOutcome> {
  const settings = await deps.settings.get(guildId);
  if (!settings.auditChannelId) return { result: 'no_audit_channel', changes: [] };
  const stored = await deps.keys.get(guildId);
  if (!stored) return { result: 'no_key', changes: [] };
  const mine = claim ? await claim() : true;
  if (mine === 'unavailable') return { result: 'lease_unavailable', changes: [] };
  if (!mine) return { result: 'claimed_elsewhere', changes: [] };
  // Before the request, which may take long: a forget meanwhile must win (keepRecord).
  const existed = await deps.store.has(guildId);
  if (await belowRequestFloor(deps, stored.apiKey)) {
    return (await noteRun(deps, guildId, existed, 'deferred')) ? { result: 'deferred', changes: [] } : FORGOTTEN;
  }

  deps.reports.emit({ type: 'upstream', guildId, route: 'listFeeds' });
  const fetched = await fetchFeeds(deps, guildId, stored.apiKey);
  if (fetched.key === 'error') {
    return (await noteRun(deps, guildId, existed, 'error')) ? { result: 'error', changes: [] } : FORGOTTEN;
  }
  const staleAfterDays = settings.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
  const feeds = fetched.key === 'ok' ? fetched.feeds : [];
  const view = fetched.key === 'ok' ? await healthView(deps, guildId, feeds, staleAfterDays) : undefined;
  const marks = view ? feedMarks(feeds, view) : undefined;

  // Decided by the write that is stored: a concurrent sweep of this guild sees this baseline.
  const written = await keepRecord(deps, guildId, existed, (current) => {
    const previous = current.baseline;
    const keyChanged = previous?.key !== fetched.key;
    const feedChanges: FeedChange[] = previous && marks && previous.key === 'ok' ? compareFeeds(previous.feeds, marks) : [];
    // While the key fails, the feeds last seen with a working key stay the comparison's base.
    const baseline: Snapshot = { key: fetched.key, feeds: marks ?? previous?.feeds ?? {} };
    const next: SweepRecord = {
      ...current,
      baseline,
      last: { at: deps.now(), result: fetched.key, changes: feedChanges.length + (keyChanged && fetched.key !== 'ok' ? 1 : 0), feeds: feeds.length, warnings: warningCount(baseline.feeds) },
    };
    return { next, result: { keyChanged, feedChanges, first: previous === undefined } };
  });
  // Forgotten during the request: nothing is kept, and nothing is posted (its audit channel is gone too).
  if (!written) return FORGOTTEN;
  const found = written.result;

  const changes: SweepChangeKind[] = [];
  if (fetched.key === 'unauthorized') {
    // Once per key whatever the sweeps find (the same post a command's 401 makes).
    if (found.keyChanged) changes.push('key_unauthorized');
    await noticeRejectedKey(deps, guildId);
  } else if (fetched.key === 'forbidden' && found.keyChanged) {
    changes.push('scope_missing');
    deps.audit.record(guildId, { kind: 'keyScopeMissing', masked: maskKey(stored.apiKey), scope: fetched.scope });
  }
  if (fetched.key === 'ok' && view) {
    const byId = new Map(feeds.map((f) => [f.id, f]));
    for (const change of found.feedChanges) {
      const feed = byId.get(change.feedId);
      if (!feed) continue;
      changes.push(CHANGE_KINDS[change.kind]);
      deps.audit.record(guildId, feedEvent(change, feed, staleAfterDays));
    }
    changes.push(...(await reportGoneChannels(deps, guildId, feeds, view)));
  }
  return { result: fetched.key, changes };
}

const CHANGE_KINDS: Record<FeedChange['kind'], SweepChangeKind> = { inactive: 'feed_inactive', active: 'feed_active', quiet: 'feed_quiet', posting: 'feed_posting' };

function feedEvent(change: FeedChange, feed: FeedListItem, days: number) {
  const summary = feedSummary(feed);
  switch (change.kind) {
    case 'inactive':
      return { kind: 'feedInactive', feed: summary, estado: feed.estado } as const;
    case 'active':
      return { kind: 'feedActiveAgain', feed: summary } as const;
    case 'quiet':
      return { kind: 'feedQuiet', feed: summary, days } as const;
    case 'posting':
      return { kind: 'feedPostsAgain', feed: summary } as const;
  }
}

async function fetchFeeds(deps: SweepDeps, guildId: string, apiKey: string): Promise<Fetched> {
  try {
    // Fresh: a list cached for autocomplete could hide the change this sweep is for.
    return { key: 'ok', feeds: (await deps.api.listFeeds({ apiKey, guildId }, { fresh: true })).feeds };
  } catch (error) {
    if (error instanceof UnauthorizedError) return { key: 'unauthorized' };
    if (error instanceof ForbiddenError) return { key: 'forbidden', scope: error.requiredScope };
    deps.logger.warn({ guildId, err: error }, 'health sweep: the feed API did not answer');
    return { key: 'error' };
  }
}

/** Each deleted channel feeds still forward into, reported once (the same post as ChannelDelete's). */
async function reportGoneChannels(deps: SweepDeps, guildId: string, feeds: readonly FeedListItem[], view: HealthView): Promise<SweepChangeKind[]> {
  const byChannel = new Map<string, FeedListItem[]>();
  for (const feed of feeds) {
    if (!/^\d{1,32}$/.test(feed.canal) || view.channelExists(feed.canal) !== false) continue;
    byChannel.set(feed.canal, [...(byChannel.get(feed.canal) ?? []), feed]);
  }
  const changes: SweepChangeKind[] = [];
  for (const [id, gone] of byChannel) if (await reportDeletedChannel(deps, guildId, { id }, gone)) changes.push('channel_gone');
  return changes;
}

/** A sweep that sent nothing useful keeps its baseline; only when it ran is kept (for status). False: the guild was forgotten meanwhile. */
async function noteRun(deps: SweepDeps, guildId: string, existed: boolean, result: SweepResult): Promise<boolean> {
  return (await keepRecord(deps, guildId, existed, (current) => ({ next: { ...current, last: { at: deps.now(), result, changes: 0 } }, result: undefined }))) !== undefined;
}

/** What a sweep of a guild forgotten while it ran returns: the guild has no key any more. */
const FORGOTTEN: SweepOutcome = { result: 'no_key', changes: [] };

/**
 * Stores what the sweep found without bringing back the record of a guild forgotten while the
 * sweep ran (`/feedbot forget`, the retention: src/guild-data/forget.ts deletes the key, then the
 * settings, then this record). Undefined when the guild was forgotten: nothing is stored.
 *
 * The choice: the sweep's write decides, not the forget (which cannot see another process's
 * sweeps), so it holds whichever process forgets and whichever sweeps.
 * - The guild had a record when the sweep began (`existed`, read before the request): the write
 *   only replaces a record still stored (SweepStore.updateExisting, a compare-and-swap in the
 *   shared store). A forget that deleted it meanwhile, in any process, wins; no cache is involved.
 * - It had none (its first sweep): a forget meanwhile left nothing to delete, so the record is
 *   created, then the key looked up again; gone, the record just created is deleted. The forget
 *   deleted the key before its last step, so either it deletes this record or this finds the key
 *   gone (this process at once; another process's forget through the key store's change
 *   announcements, PostgreSQL or Redis, within its cache's bound otherwise). A key removed by
 *   `/apikey remove` meanwhile costs only this first baseline.
 * Not chosen: forget waiting for the sweeps in flight (it sees only its own process's), and a
 * "forgotten" tombstone in place of the record (it would keep the guild's id after a forget that
 * promises to delete everything: docs/PRIVACY.md).
 */
async function keepRecord<R>(deps: SweepDeps, guildId: string, existed: boolean, change: (current: SweepRecord) => { next: SweepRecord; result: R }): Promise<{ result: R } | undefined> {
  if (existed) return deps.store.updateExisting(guildId, change);
  const result = await deps.store.update(guildId, change);
  if (await deps.keys.has(guildId)) return { result };
  await deps.store.delete(guildId);
  return undefined;
}

export type { KeyState };
