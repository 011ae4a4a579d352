/**
 * The health sweeps and the weekly digest, wired: which guilds are candidates (over the gateway,
 * the guilds of this process's shards; in HTTP mode, those whose settings name an audit channel),
 * the lease that keeps processes apart (src/leases/), the scheduler (scheduler.ts) and the digest
 * check at each tick. One process, one HealthSweeps; app.ts starts it and stops it.
 */
import type { Client } from 'discord.js';
import type { KeyBackend } from '../../keys/backend.js';
import { openBackend } from '../../keys/backends.js';
import type { Logger } from '../../logger.js';
import { SETTINGS_NAMESPACE } from '../../settings/store.js';
import { postDueDigest } from './digest.js';
import type { SweepReport } from './events.js';
import { openLease, type SlotLease } from '../../leases/lease.js';
import { watchLease } from './lease-watch.js';
import type { SweepRecord } from './record.js';
import { SweepScheduler } from './scheduler.js';
import type { SweepStore } from './store.js';
import { sweepGuild, type SweepDeps } from './sweep.js';

/** What one sweep needs (sweep.ts), plus what the scheduler and the lease need. */
interface HealthSweepsOptions extends Omit<SweepDeps, 'now'> {
  intervalMs: number;
  transport: 'gateway' | 'http';
  databaseUrl: string;
  redisUrl?: string | undefined;
  client: Client;
  now?: () => number;
  /** The lease the processes share (app.ts opens it; the caller closes it). Absent: one opened here and closed by stop(). */
  lease?: SlotLease;
  /** Tests: a tick. */
  tickMs?: number;
}

export interface HealthSweeps {
  readonly scheduler: SweepScheduler;
  readonly store: SweepStore;
  readonly intervalMs: number;
  /** Tells the digest check about a plan changed here at once (other processes read it within refreshMs). */
  planChanged(guildId: string, plan: SweepRecord['digest']): void;
  stop(): Promise<void>;
}

export async function startHealthSweeps(opts: HealthSweepsOptions): Promise<HealthSweeps> {
  const now = opts.now ?? Date.now;
  const logger = opts.logger;
  const ownLease = opts.lease ? undefined : await openLease({ databaseUrl: opts.databaseUrl, redisUrl: opts.redisUrl });
  const lease = opts.lease ?? ownLease!;
  // HTTP mode has no guild cache: the guilds whose settings name an audit channel (a guild without
  // one is never a candidate, so it costs no request and no lease).
  const settingsList: KeyBackend | undefined =
    opts.transport === 'http' ? await openBackend({ databaseUrl: opts.databaseUrl, namespace: SETTINGS_NAMESPACE, logger }) : undefined;
  const deps: SweepDeps = { api: opts.api, keys: opts.keys, settings: opts.settings, audit: opts.audit, channels: opts.channels, store: opts.store, logger, reports: opts.reports, now };
  // A lease store that does not answer is logged once per outage (lease-watch.ts): a sweep is then
  // skipped, and a due digest waits for a later tick (it stays due), both without a line.
  const watched = watchLease(lease, logger);
  const digestDeps = { ...deps, claim: async (name: string, ttlMs: number) => (await watched.claim(name, ttlMs)) === true };
  const plans = new Map<string, NonNullable<SweepRecord['digest']>>();
  let plansReadAt = -Infinity;
  const refreshMs = Math.min(opts.intervalMs, 5 * 60_000);

  async function candidates(): Promise<Iterable<string>> {
    if (!settingsList) return [...opts.client.guilds.cache.keys()];
    const entries = await settingsList.listEntries();
    return entries.filter((e) => typeof (e.record as { auditChannelId?: unknown } | undefined)?.auditChannelId === 'string').map((e) => e.guildId);
  }

  async function checkDigests(at: number): Promise<void> {
    if (at - plansReadAt >= refreshMs) {
      plansReadAt = at;
      plans.clear();
      for (const { guildId, record } of await opts.store.list()) if (record.digest) plans.set(guildId, record.digest);
    }
    const mine = settingsList ? undefined : opts.client.guilds.cache;
    for (const guildId of plans.keys()) {
      // Over the gateway, a guild of another shard process is that process's digest.
      if (mine && !mine.has(guildId)) continue;
      await postDueDigest(digestDeps, guildId).catch((error: unknown) => logger.warn({ guildId, err: error }, 'weekly digest not posted'));
    }
  }

  const scheduler = new SweepScheduler({
    intervalMs: opts.intervalMs,
    guilds: candidates,
    sweep: (guildId, slot) => sweepGuild(deps, guildId, () => watched.claim(`sweep:${guildId}:${slot}`, opts.intervalMs)),
    onTick: checkDigests,
    logger,
    now,
    ...(opts.tickMs ? { tickMs: opts.tickMs } : {}),
  });
  const unlog = opts.reports.add(logReport(logger));
  scheduler.start();
  logger.info({ intervalSeconds: opts.intervalMs / 1000, lease: lease.kind, transport: opts.transport }, 'health sweeps started');
  return {
    scheduler,
    store: opts.store,
    intervalMs: opts.intervalMs,
    planChanged(guildId, plan) {
      if (plan) plans.set(guildId, plan);
      else plans.delete(guildId);
    },
    async stop() {
      await scheduler.stop();
      unlog();
      await ownLease?.close();
      await settingsList?.close();
    },
  };
}

/** The operator's log lines (docs/OPERATIONS.md): quiet for a sweep that found nothing new. */
function logReport(logger: Logger) {
  return (r: SweepReport): void => {
    if (r.type === 'sweep') {
      const fields = { guildId: r.guildId, result: r.result, changes: r.changes, durationMs: r.durationMs };
      if (r.result === 'error' || r.result === 'deferred' || r.changes > 0) logger.info(fields, 'health sweep');
      else logger.debug(fields, 'health sweep');
    } else if (r.type === 'change') logger.info({ guildId: r.guildId, kind: r.kind }, 'health change posted');
    else if (r.type === 'digest') logger.info({ guildId: r.guildId, week: r.week, lateMs: r.lateMs }, 'weekly digest posted');
    else logger.debug({ guildId: r.guildId, route: r.route }, 'health sweep request');
  };
}
