/**
 * What happens to a server's data once the bot leaves it (GUILD_DATA_RETENTION_HOURS): a
 * departure mark (departures.ts) when it leaves, nothing lost when it is added back before the
 * retention ends, and everything deleted (forget.ts) by a periodic sweep once it has. The mark
 * lives in the shared store, so a pending deletion survives restarts and every process sharing
 * the store sees it; two processes deleting the same guild is harmless (forgetGuild is
 * idempotent), so the sweep needs no lease.
 *
 * Before deleting, the sweep asks `presence` whether the bot is really gone: the bot may have been
 * added back while no process was listening (a restart, HTTP mode). `notMine` leaves the guild to
 * the process that owns its shard; `unknown` (a shard not ready, Discord not answering) keeps the
 * mark for the next sweep.
 */
import type { Logger } from '../logger.js';
import { Observers, type Listener } from '../observers.js';
import type { DepartureStore } from './departures.js';
import { forgetGuild, type GuildDataServices } from './forget.js';
import { tracer } from '../tracing/tracer.js';

type ForgetReason = 'removed' | 'command';
export type Presence = 'present' | 'absent' | 'notMine' | 'unknown';

export interface GuildForgotten {
  guildId: string;
  reason: ForgetReason;
}

interface GuildDataRetentionOptions {
  services: GuildDataServices & { departures: DepartureStore };
  /** GUILD_DATA_RETENTION_HOURS: 0 deletes at once. */
  retentionHours: number;
  presence(guildId: string): Promise<Presence>;
  logger: Logger;
  now?: () => number;
}

const HOUR_MS = 3_600_000;

export class GuildDataRetention {
  private readonly forgotten = new Observers<GuildForgotten>('guild forgotten');
  private readonly now: () => number;
  private readonly retentionMs: number;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly opts: GuildDataRetentionOptions) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = opts.retentionHours * HOUR_MS;
  }

  /** Listens to every deletion (metrics: feedbot_guilds_forgotten_total); returns the unsubscribe. */
  onForgotten(listener: Listener<GuildForgotten>): () => void {
    return this.forgotten.add(listener);
  }

  /** The bot was removed from the guild (GUILD_DELETE without `unavailable`, or missing from the bot's list of guilds). */
  left(guildId: string): Promise<void> {
    return this.track(async () => {
      if (this.retentionMs === 0) {
        await this.forget(guildId, 'removed');
        return;
      }
      const leftAt = this.now();
      if (await this.opts.services.departures.mark(guildId, leftAt)) {
        this.opts.logger.info({ guildId, reason: 'removed', deleteAfter: new Date(leftAt + this.retentionMs).toISOString() }, 'guild data scheduled for deletion');
      }
    });
  }

  /** The bot is in the guild again (GUILD_CREATE, or in the bot's list of guilds): its mark goes, nothing is deleted. */
  back(guildId: string): Promise<void> {
    return this.track(async () => {
      if (await this.opts.services.departures.clear(guildId)) this.opts.logger.info({ guildId, reason: 'added_back' }, 'guild data kept: the bot was added back');
    });
  }

  /** Deletes the guild's data now (`/feedbot forget`, a due departure). */
  async forget(guildId: string, reason: ForgetReason): Promise<void> {
    const stores = await tracer().inSpan('guild_data forget', { attributes: { 'discord.guild.id': guildId, 'feedbot.forget.reason': reason } }, () => forgetGuild(this.opts.services, guildId));
    this.opts.logger.info({ guildId, reason, stores }, 'guild data deleted');
    this.forgotten.emit({ guildId, reason });
  }

  /** Deletes the data of every guild whose mark is older than the retention and that the bot is still out of; returns how many. */
  sweep(): Promise<number> {
    this.sweeping ??= this.track(async () => {
      try {
        return await this.sweepOnce();
      } finally {
        this.sweeping = undefined;
      }
    });
    return this.sweeping;
  }

  /** Sweeps every `intervalMs` (unref'd: it never keeps the process alive), the first one soon after start. */
  start(intervalMs: number): void {
    this.stop();
    const run = () =>
      void this.sweep().catch((error: unknown) => this.opts.logger.warn({ err: error }, 'guild data sweep failed; the next one tries again'));
    this.timer = setInterval(run, intervalMs);
    this.timer.unref();
    setTimeout(run, Math.min(intervalMs, 60_000)).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Resolves when every mark, clear, sweep and deletion under way has finished (before the stores close; tests). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private sweepOnce(): Promise<number> {
    return tracer().inSpan('guild_data retention_sweep', { root: true }, async (span) => {
      const deleted = await this.sweepDue();
      span.set({ 'feedbot.guilds_deleted': deleted });
      return deleted;
    });
  }

  private async sweepDue(): Promise<number> {
    const now = this.now();
    let deleted = 0;
    for (const { guildId, leftAt } of await this.opts.services.departures.list(now)) {
      if (now - leftAt < this.retentionMs) continue;
      try {
        const presence = await this.opts.presence(guildId);
        if (presence === 'present') await this.back(guildId);
        else if (presence === 'absent') {
          await this.forget(guildId, 'removed');
          deleted += 1;
        }
      } catch (error) {
        this.opts.logger.warn({ err: error, guildId }, 'could not delete the data of a guild the bot left; the next sweep tries again');
      }
    }
    return deleted;
  }

  private track<T>(work: () => Promise<T>): Promise<T> {
    const done = work();
    this.running.add(done);
    const drop = () => this.running.delete(done);
    done.then(drop, drop);
    return done;
  }
}
