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
import { HEALTH_CHANNELS_WAIT_MS, type HealthView } from '../feed-health.js';
import type { KeyState, Snapshot, SweepRecord, SweepResult } from './record.js';
import { compareFeeds, feedMarks, warningCount, type FeedChange } from './snapshot.js';
import type { SweepChangeKind, SweepReport } from './events.js';
import type { SweepStore } from './store.js';
import { tracer } from '../../tracing/tracer.js';

/** Below this many requests left in the key's window, a sweep waits for its next slot. */
export const MIN_REMAINING = 10;

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

export interface SweepOutcome {
  result: SweepResult;
  changes: SweepChangeKind[];
}

type Fetched = { key: 'ok'; feeds: FeedListItem[] } | { key: 'unauthorized' } | { key: 'forbidden'; scope: string } | { key: 'error' };

/**
 * `claim`: asked once the guild is found worth a request, before it is sent; false when another
 * process holds this slot (src/leases/), and then nothing is sent.
 */
export function sweepGuild(deps: SweepDeps, guildId: string, claim?: () => Promise<boolean>): Promise<SweepOutcome> {
  // Each sweep is a trace of its own: its key store read, feed API request and audit posts are children.
  return tracer().inSpan('health_sweep', { root: true, attributes: { 'discord.guild.id': guildId } }, async (span) => {
    const started = deps.now();
    const outcome = await sweepOnce(deps, guildId, claim).catch((error: unknown): SweepOutcome => {
      deps.logger.warn({ guildId, err: error }, 'health sweep failed');
      return { result: 'error', changes: [] };
    });
    span.set({ 'feedbot.sweep.result': outcome.result, 'feedbot.sweep.changes': outcome.changes.length });
    if (outcome.result === 'error') span.failed('error');
    for (const kind of outcome.changes) deps.reports.emit({ type: 'change', guildId, kind });
    deps.reports.emit({ type: 'sweep', guildId, result: outcome.result, changes: outcome.changes.length, durationMs: deps.now() - started });
    return outcome;
  });
}

async function sweepOnce(deps: SweepDeps, guildId: string, claim?: () => Promise<boolean>): Promise<SweepOutcome> {
  const settings = await deps.settings.get(guildId);
  if (!settings.auditChannelId) return { result: 'no_audit_channel', changes: [] };
  const stored = await deps.keys.get(guildId);
  if (!stored) return { result: 'no_key', changes: [] };
  if (claim && !(await claim())) return { result: 'claimed_elsewhere', changes: [] };
  const gate = await deps.api.gateState(stored.apiKey);
  if (gate.remaining !== null && gate.remaining < MIN_REMAINING && gate.resetAt && gate.resetAt.getTime() > deps.now()) {
    await noteRun(deps, guildId, 'deferred');
    return { result: 'deferred', changes: [] };
  }

  deps.reports.emit({ type: 'upstream', guildId, route: 'listFeeds' });
  const fetched = await fetchFeeds(deps, guildId, stored.apiKey);
  if (fetched.key === 'error') {
    await noteRun(deps, guildId, 'error');
    return { result: 'error', changes: [] };
  }
  const staleAfterDays = settings.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
  const feeds = fetched.key === 'ok' ? fetched.feeds : [];
  const view = fetched.key === 'ok' ? await healthView(deps, guildId, feeds, staleAfterDays) : undefined;
  const marks = view ? feedMarks(feeds, view) : undefined;

  // Decided by the write that is stored: a concurrent sweep of this guild sees this baseline.
  const found = await deps.store.update(guildId, (current) => {
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

async function healthView(deps: SweepDeps, guildId: string, feeds: readonly FeedListItem[], staleAfterDays: number): Promise<HealthView> {
  const channels = await deps.channels.channelIds(guildId, HEALTH_CHANNELS_WAIT_MS, feeds.map((f) => f.canal));
  return { channelExists: (id) => (channels ? channels.has(id) : undefined), now: deps.now(), staleAfterDays };
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

/** A sweep that sent nothing useful keeps its baseline; only when it ran is kept (for status). */
async function noteRun(deps: SweepDeps, guildId: string, result: SweepResult): Promise<void> {
  await deps.store.update(guildId, (current) => ({ next: { ...current, last: { at: deps.now(), result, changes: 0 } }, result: undefined }));
}

export type { KeyState };
