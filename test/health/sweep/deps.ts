/**
 * What the sweep and digest tests hand sweepGuild / postDueDigest: the harness's API client,
 * stores, audit trail and Discord client, a sweep store, a silent logger, and the test's clock
 * and reports.
 */
import { pino } from 'pino';
import { ChannelDirectory } from '../../../src/bot/channel-directory.js';
import type { SweepReport } from '../../../src/health/sweep/events.js';
import type { SweepStore } from '../../../src/health/sweep/store.js';
import type { SweepDeps } from '../../../src/health/sweep/sweep.js';
import { Observers } from '../../../src/observers.js';
import type { BotHarness } from '../../helpers/bot.js';

export function sweepDepsOf(bot: BotHarness, store: SweepStore, opts: { now?: () => number; reports?: Observers<SweepReport> } = {}): SweepDeps {
  return {
    api: bot.client,
    keys: bot.keys,
    settings: bot.settings,
    audit: bot.audit,
    channels: new ChannelDirectory(bot.discord.client),
    store,
    logger: pino({ level: 'silent' }),
    reports: opts.reports ?? new Observers<SweepReport>('test'),
    now: opts.now ?? Date.now,
  };
}
