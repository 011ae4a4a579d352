/**
 * `/feedbot forget` (or the retention) while a health sweep of the same server is in flight: the
 * sweep's write, landing after the deletion, must not bring the server's sweep record back
 * (docs/PRIVACY.md promises it is deleted), whether the forget ran in the sweeping process or in
 * another one sharing the store, and whether or not the server had been swept before.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { SweepStore } from '../../src/health/sweep/store.js';
import { sweepGuild, type SweepDeps } from '../../src/health/sweep/sweep.js';
import { GuildDataRetention } from '../../src/guild-data/retention.js';
import type { GuildDataServices } from '../../src/guild-data/forget.js';
import { DepartureStore } from '../../src/guild-data/departures.js';
import { MemoryPendingStore } from '../../src/interactions/pending-memory.js';
import { KeyStore } from '../../src/keys/store.js';
import { GuildSettingsStore } from '../../src/settings/store.js';
import { SECRET, createBotHarness, rl, type BotHarness } from '../helpers/bot.js';
import { GUILD_ID } from '../helpers/discord.js';
import { AUDIT_CHANNEL_ID, answerRest, auditPosts, loadIntoCache, type World } from '../audit/discord-world.js';
import { sweepDepsOf } from '../health/sweep/deps.js';

const FEED_CHANNEL = '1300000000000000001';
const world: World = { guildId: GUILD_ID, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit' }, { id: FEED_CHANNEL, name: 'media' }] };
const feed = (over: Record<string, unknown> = {}) => ({ id: 1, cuenta: 'nasa', canal: FEED_CHANNEL, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: new Date().toISOString(), ...over });

let bot: BotHarness;
let store: SweepStore;
let deps: SweepDeps;
/** Closed after each test: the other process's stores. */
let closing: Array<{ close(): Promise<unknown> }>;

beforeEach(async () => {
  bot = await createBotHarness({ transport: 'gateway' });
  await bot.setKey();
  loadIntoCache(bot.discord.client, world);
  answerRest(bot.discord.recorder, world);
  store = await SweepStore.open({ databaseUrl: join(bot.dir, 'keys.sqlite'), logger: pino({ level: 'silent' }) });
  closing = [];
  deps = sweepDepsOf(bot, store);
  await bot.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, auditLocale: 'en-US' }));
});

afterEach(async () => {
  await bot.close();
  await store.close();
  for (const c of closing) await c.close();
});

const answerFeeds = (feeds: unknown[]) => bot.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl() });
const storedGuilds = async (s: SweepStore = store) => (await s.list()).map((e) => e.guildId);

/** A sweep whose GET /feeds waits until `release()`; `asked` resolves once it was sent. */
function heldSweep() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const sent = new Promise<void>((resolve) => (asked = resolve));
  const api = Object.create(bot.client) as typeof bot.client;
  api.listFeeds = async (...args: Parameters<typeof bot.client.listFeeds>) => {
    asked();
    await gate;
    return bot.client.listFeeds(...args);
  };
  const outcome = sweepGuild({ ...deps, api }, GUILD_ID);
  return { outcome, sent, release };
}

/** This process's forget, with the sweep store app.ts gives it. */
function forgetHere(): Promise<void> {
  const services: GuildDataServices & { departures: DepartureStore } = { keys: bot.keys, settings: bot.settings, pending: bot.pending, departures: bot.departures, sweeps: store };
  return new GuildDataRetention({ services, retentionHours: 168, presence: async () => 'absent', logger: bot.logger }).forget(GUILD_ID, 'command');
}

/** Another process's forget: its own connections and caches on the same store. */
async function forgetElsewhere(): Promise<void> {
  const databaseUrl = join(bot.dir, 'keys.sqlite');
  const logger = pino({ level: 'silent' });
  const keys = await KeyStore.open({ databaseUrl, secret: SECRET, logger });
  const settings = await GuildSettingsStore.open({ databaseUrl, logger });
  const departures = await DepartureStore.open({ databaseUrl, logger });
  const sweeps = await SweepStore.open({ databaseUrl, logger });
  closing.push(keys, settings, departures, sweeps);
  const services = { keys, settings, pending: new MemoryPendingStore(), departures, sweeps };
  await new GuildDataRetention({ services, retentionHours: 168, presence: async () => 'absent', logger }).forget(GUILD_ID, 'command');
}

describe('a forget during a sweep of the same server', () => {
  it('the sweep in flight does not write the forgotten server’s record back, nor post', async () => {
    answerFeeds([feed()]);
    expect((await sweepGuild(deps, GUILD_ID)).result).toBe('ok');
    expect(await storedGuilds()).toEqual([GUILD_ID]);

    answerFeeds([feed({ estado: 'pausado' })]);
    const sweep = heldSweep();
    await sweep.sent;
    await forgetHere();
    expect(await storedGuilds()).toEqual([]);
    sweep.release();
    expect((await sweep.outcome).changes).toEqual([]);
    expect(await storedGuilds()).toEqual([]);
    await bot.audit.flush();
    expect(auditPosts(bot.discord.recorder)).toEqual([]);
  });

  it('the same when the forget runs in another process sharing the store', async () => {
    answerFeeds([feed()]);
    await sweepGuild(deps, GUILD_ID);
    answerFeeds([feed({ estado: 'pausado' })]);
    const sweep = heldSweep();
    await sweep.sent;
    await forgetElsewhere();
    sweep.release();
    expect((await sweep.outcome).changes).toEqual([]);
    expect(await storedGuilds()).toEqual([]);
  });

  it('the first sweep of a server (no record yet) does not create one after the forget', async () => {
    answerFeeds([feed()]);
    const sweep = heldSweep();
    await sweep.sent;
    await forgetHere();
    sweep.release();
    await sweep.outcome;
    expect(await storedGuilds()).toEqual([]);
  });

  it('a server that is not forgotten keeps its record, first sweep or not', async () => {
    answerFeeds([feed()]);
    const first = heldSweep();
    await first.sent;
    first.release();
    expect((await first.outcome).result).toBe('ok');
    answerFeeds([feed({ estado: 'pausado' })]);
    expect(await sweepGuild(deps, GUILD_ID)).toEqual({ result: 'ok', changes: ['feed_inactive'] });
    expect((await store.get(GUILD_ID)).baseline?.feeds['1']?.active).toBe(false);
  });
});
