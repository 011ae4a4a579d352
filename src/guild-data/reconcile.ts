/**
 * The servers the bot left while nobody was listening: HTTP mode has no gateway, and a gateway
 * bot that was down missed the GUILD_DELETE. Once a day (GUILD_RECONCILE_SECONDS) the bot's own
 * list of guilds (`GET /users/@me/guilds`, 200 a page with `after`) is compared with the guilds
 * that have a stored key or settings: each stored guild missing from the list is marked as left
 * (retention.ts, then the same retention), and each marked guild back in the list is kept.
 * A listing that fails part-way marks nothing (an incomplete list would mark guilds still there).
 */
import { Routes, type REST } from 'discord.js';
import { openBackend } from '../keys/backends.js';
import { DEFAULT_NAMESPACE } from '../keys/crypto.js';
import type { Logger } from '../logger.js';
import { SETTINGS_NAMESPACE } from '../settings/store.js';
import type { DepartureStore } from './departures.js';
import type { GuildDataRetention } from './retention.js';
import { tracer } from '../tracing/tracer.js';

/** Discord's largest page of `GET /users/@me/guilds`. */
const GUILDS_PAGE = 200;

/** Every guild the bot is in, page after page. */
export async function botGuildIds(rest: Pick<REST, 'get'>): Promise<Set<string>> {
  const ids = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: String(GUILDS_PAGE), ...(after ? { after } : {}) });
    const page = (await rest.get(Routes.userGuilds(), { query })) as Array<{ id: string }>;
    for (const guild of page) ids.add(guild.id);
    if (page.length < GUILDS_PAGE) return ids;
    // Pages come in id order; the next starts after the highest id seen.
    after = page.reduce((max, guild) => (BigInt(guild.id) > BigInt(max) ? guild.id : max), page[0]!.id);
  }
}

/** The guilds with a stored key or settings record (namespaces opened for the listing, then closed). */
async function storedGuildIds(databaseUrl: string, logger: Logger, namespaces: readonly string[] = [DEFAULT_NAMESPACE, SETTINGS_NAMESPACE]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const namespace of namespaces) {
    const db = await openBackend({ databaseUrl, namespace, logger });
    try {
      for (const entry of await db.listEntries()) ids.add(entry.guildId);
    } finally {
      await db.close();
    }
  }
  return ids;
}

interface ReconcilerOptions {
  rest: Pick<REST, 'get'>;
  databaseUrl: string;
  retention: Pick<GuildDataRetention, 'left' | 'back'>;
  departures: Pick<DepartureStore, 'list'>;
  logger: Logger;
  now?: () => number;
}

interface Reconciliation {
  /** Stored guilds the bot is no longer in (marked as left). */
  left: number;
  /** Guilds the bot is in (their marks, if any, cleared). */
  inBot: number;
}

export class GuildReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<Reconciliation> | undefined;

  constructor(private readonly opts: ReconcilerOptions) {}

  run(): Promise<Reconciliation> {
    this.running ??= this.reconcile().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Every `intervalMs`, the first after a random part of it (replicas restarted together do not list together), at most 10 minutes. */
  start(intervalMs: number): void {
    this.stop();
    const tick = () => {
      void this.run().catch((error: unknown) => this.opts.logger.warn({ err: error }, 'guild reconciliation failed; the next one tries again'));
    };
    const first = setTimeout(() => {
      tick();
      this.timer = setInterval(tick, intervalMs);
      this.timer.unref();
    }, Math.min(intervalMs, 600_000) * (0.5 + Math.random() / 2));
    first.unref();
    this.timer = first;
  }

  stop(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      clearInterval(this.timer);
    }
    this.timer = undefined;
  }

  /** Waits for a reconciliation under way (before the stores close). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private reconcile(): Promise<Reconciliation> {
    return tracer().inSpan('guild_data reconcile', { root: true }, async (span) => {
      const done = await this.reconcileOnce();
      span.set({ 'feedbot.guilds_in_bot': done.inBot, 'feedbot.guilds_left': done.left });
      return done;
    });
  }

  private async reconcileOnce(): Promise<Reconciliation> {
    const inBot = await botGuildIds(this.opts.rest);
    const stored = await storedGuildIds(this.opts.databaseUrl, this.opts.logger);
    let left = 0;
    for (const guildId of stored) {
      if (inBot.has(guildId)) continue;
      await this.opts.retention.left(guildId);
      left += 1;
    }
    for (const { guildId } of await this.opts.departures.list((this.opts.now ?? Date.now)())) {
      if (inBot.has(guildId)) await this.opts.retention.back(guildId);
    }
    this.opts.logger.info({ inBot: inBot.size, stored: stored.size, left }, 'guild reconciliation done');
    return { left, inBot: inBot.size };
  }
}
