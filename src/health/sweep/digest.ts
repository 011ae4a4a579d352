/**
 * The weekly digest: GET /stats and GET /feeds (two requests, no more), with this week's created
 * and deleted counts (weekly-counts.ts), posted to the audit channel once a week at the server's
 * day and hour. Exactly once: a lease per (guild, ISO week) keeps the replicas apart, and the
 * record's `lastWeek`, written by compare-and-swap before the post, decides it. A digest missed by
 * a restart is posted up to DIGEST_LATE_MS late; later it is skipped (week's news gone stale). A
 * week before the last one posted (a clock set back) is never posted. Like
 * a sweep, it waits while the key has fewer than MIN_REMAINING requests left in its window.
 */
import type { DigestSummary } from '../../audit/events.js';
import { translator, type Translator } from '../../i18n/index.js';
import { DEFAULT_STALE_AFTER_DAYS } from '../../settings/schema.js';
import { feedSummary } from '../deleted-channels.js';
import { HEALTH_CHANNELS_WAIT_MS, feedWarnings, warningLabel } from '../feed-health.js';
import { belowRequestFloor, type SweepDeps } from './sweep.js';
import { dueDigest, isoWeek, postedAlready } from './weeks.js';
import { tracer } from '../../tracing/tracer.js';

/** Feeds with a warning listed by name; the rest are counted. */
const MAX_LISTED = 10;
/**
 * How long one process holds a week's digest to itself. Short: the lease only keeps replicas from
 * building it at once (the record's `lastWeek` decides what is posted), so when the requests fail
 * the digest is tried again this much later, within its 6 hours, rather than lost for the week.
 */
const DIGEST_RETRY_MS = 10 * 60_000;

export type DigestDeps = SweepDeps & { claim: (name: string, ttlMs: number) => Promise<boolean> };

/** The digest of `guildId` now, in `t`'s words for the warnings; undefined without a key. */
export async function buildDigest(deps: SweepDeps, guildId: string, t: Translator): Promise<DigestSummary | undefined> {
  const stored = await deps.keys.get(guildId);
  if (!stored) return undefined;
  const auth = { apiKey: stored.apiKey, guildId };
  deps.reports.emit({ type: 'upstream', guildId, route: 'getStats' });
  deps.reports.emit({ type: 'upstream', guildId, route: 'listFeeds' });
  const [stats, list, settings, record] = await Promise.all([deps.api.getStats(auth), deps.api.listFeeds(auth, { fresh: true }), deps.settings.get(guildId), deps.store.get(guildId)]);
  const staleAfterDays = settings.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
  const channels = await deps.channels.channelIds(guildId, HEALTH_CHANNELS_WAIT_MS, list.feeds.map((f) => f.canal));
  const view = { channelExists: (id: string) => (channels ? channels.has(id) : undefined), now: deps.now(), staleAfterDays };
  const warned = list.feeds.map((feed) => ({ feed, warnings: feedWarnings(feed, view) })).filter((w) => w.warnings.length > 0);
  const week = record.week?.id === isoWeek(deps.now()) ? record.week : undefined;
  return {
    postsThisWeek: stats.postsEstaSemana,
    mostActive: stats.cuentaMasActiva,
    active: stats.feedsActivos,
    paused: stats.feedsPausados,
    warned: warned.slice(0, MAX_LISTED).map((w) => ({ feed: feedSummary(w.feed), warnings: w.warnings.map((x) => warningLabel(t, x, staleAfterDays)) })),
    warnedTotal: warned.length,
    created: week?.created ?? 0,
    deleted: week?.deleted ?? 0,
  };
}

/**
 * Posts `guildId`'s digest when one is due and not posted yet (this process or another); returns
 * whether it did. The warnings are worded in the audit channel's language.
 */
export async function postDueDigest(deps: DigestDeps, guildId: string, lang: (guildId: string, auditLocale: string | undefined) => Translator = defaultLang): Promise<boolean> {
  const now = deps.now();
  const record = await deps.store.get(guildId);
  const plan = record.digest;
  if (!plan) return false;
  const due = dueDigest(plan.day, plan.hour, now);
  if (!due || postedAlready(plan.lastWeek, due.week)) return false;
  // A span only for a digest that is due: the checks above run every tick for every plan.
  return tracer().inSpan('weekly_digest', { root: true, attributes: { 'discord.guild.id': guildId, 'feedbot.digest.week': due.week } }, async (span) => {
    const posted = await postDigest(deps, guildId, lang, now, due);
    span.set({ 'feedbot.digest.posted': posted });
    return posted;
  });
}

async function postDigest(
  deps: DigestDeps,
  guildId: string,
  lang: (guildId: string, auditLocale: string | undefined) => Translator,
  now: number,
  due: NonNullable<ReturnType<typeof dueDigest>>,
): Promise<boolean> {
  const settings = await deps.settings.get(guildId);
  if (!settings.auditChannelId || !(await deps.keys.has(guildId))) return false;
  // The floor the sweeps keep (sweep.ts): with fewer than MIN_REMAINING requests left, the two
  // requests would be the members' next commands' budget. Checked before the lease, which is not
  // taken and the week not marked: the digest stays due and the next tick asks again, so it goes
  // out once the window resets, well within its DIGEST_LATE_MS. A key that does not read is left
  // to buildDigest, which says so once per lease (DIGEST_RETRY_MS) rather than at every tick.
  const stored = await deps.keys.get(guildId).catch(() => undefined);
  if (stored && (await belowRequestFloor(deps, stored.apiKey))) {
    deps.logger.debug({ guildId, week: due.week }, 'weekly digest waits: the key is low on requests');
    return false;
  }
  if (!(await deps.claim(`digest:${guildId}:${due.week}`, DIGEST_RETRY_MS))) return false;
  const digest = await buildDigest(deps, guildId, lang(guildId, settings.auditLocale));
  if (!digest) return false;
  const first = await deps.store.update(guildId, (current) => {
    if (!current.digest || postedAlready(current.digest.lastWeek, due.week)) return { next: current, result: false };
    return { next: { ...current, digest: { ...current.digest, lastWeek: due.week } }, result: true };
  });
  if (!first) return false;
  deps.audit.record(guildId, { kind: 'weeklyDigest', digest });
  deps.reports.emit({ type: 'digest', guildId, week: due.week, lateMs: now - due.at });
  return true;
}

const defaultLang = (_guildId: string, auditLocale: string | undefined) => translator(auditLocale?.toLowerCase().startsWith('es') ? 'es' : 'en');
