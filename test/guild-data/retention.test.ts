/**
 * Forgetting the servers the bot is removed from, with real discord.js objects: raw GUILD_DELETE
 * and GUILD_CREATE packets through discord.js's own handlers, the real stores on SQLite, and a
 * fake clock for the retention.
 */
import { expect } from 'vitest';
import { Status, type Client } from 'discord.js';
import { GUILD_ID, OTHER_GUILD_ID } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from '../bot/known-guilds.js';
import { GuildDataRetention, type GuildForgotten, type Presence } from '../../src/guild-data/retention.js';
import { guildJoined, guildLeft } from '../../src/guild-data/watch.js';
import { listenTo } from '../../src/bot/gateway-listeners.js';
import { BotMetrics } from '../../src/ops/metrics.js';

const HOUR = 3_600_000;

interface WithPackets {
  ws: { status: Status; handlePacket(packet: { t: string; d: unknown }, shard: { id: number }): boolean };
}
const packet = (client: Client, t: string, d: unknown) => (client as unknown as WithPackets).ws.handlePacket({ t, d }, { id: 0 });

/** The bot in GUILD_ID (with a key and settings) and OTHER_GUILD_ID, its gateway ready (guildCreate is only emitted then). */
async function inTwoGuilds(h: BotHarness): Promise<void> {
  knowGuild(h.discord.client, GUILD_ID, []);
  knowGuild(h.discord.client, OTHER_GUILD_ID, []);
  (h.discord.client as unknown as WithPackets).ws.status = Status.Ready;
  await h.setKey(GUILD_ID);
  await h.setKey(OTHER_GUILD_ID);
  await h.settings.update(GUILD_ID, (s) => ({ ...s, staleAfterDays: 3 }));
}

function retention(h: BotHarness, hours: number, clock: { now: number }, presence: (id: string) => Presence = (id) => (h.discord.client.guilds.cache.has(id) ? 'present' : 'absent')) {
  const r = new GuildDataRetention({
    services: { keys: h.keys, settings: h.settings, pending: h.pending, departures: h.departures },
    retentionHours: hours,
    presence: async (id) => presence(id),
    logger: h.logger,
    now: () => clock.now,
  });
  const forgotten: GuildForgotten[] = [];
  r.onForgotten((e) => forgotten.push(e));
  const watch = listenTo(h.discord.client, [guildLeft, guildJoined], { guildData: r, logger: h.logger });
  return { r, forgotten, watch };
}

botTest('GUILD_DELETE with a retention of 0 deletes that server\'s key, settings and confirmations at once; the other server keeps its own', async ({ bot: h }) => {
  await inTwoGuilds(h);
  const clock = { now: Date.parse('2026-11-01T10:00:00Z') };
  const { r, forgotten, watch } = retention(h, 0, clock);
  await h.pending.put(`delete:${GUILD_ID}:1800000000000000001`, '{"id":1}', 60_000);
  await h.pending.put(`delete:${OTHER_GUILD_ID}:1800000000000000002`, '{"id":2}', 60_000);

  packet(h.discord.client, 'GUILD_DELETE', { id: GUILD_ID });
  await r.settled();

  expect(await h.keys.has(GUILD_ID)).toBe(false);
  expect((await h.settings.get(GUILD_ID)).staleAfterDays).toBeUndefined();
  expect(await h.pending.take(`delete:${GUILD_ID}:1800000000000000001`)).toBeUndefined();
  expect(await h.pending.take(`delete:${OTHER_GUILD_ID}:1800000000000000002`)).toBe('{"id":2}');
  expect(await h.keys.has(OTHER_GUILD_ID)).toBe(true);
  expect(forgotten).toEqual([{ guildId: GUILD_ID, reason: 'removed' }]);
  expect(h.logs.find((l) => l.msg === 'guild data deleted')).toMatchObject({ guildId: GUILD_ID, reason: 'removed' });
  watch.stop();
});

botTest('GUILD_DELETE with `unavailable` (an outage) changes nothing', async ({ bot: h }) => {
  await inTwoGuilds(h);
  const { r, watch } = retention(h, 0, { now: 0 });
  packet(h.discord.client, 'GUILD_DELETE', { id: GUILD_ID, unavailable: true });
  await r.settled();
  expect(await h.keys.has(GUILD_ID)).toBe(true);
  expect(await h.departures.get(GUILD_ID)).toBeUndefined();
  watch.stop();
});

botTest('removed, then added back within the retention: nothing is lost; removed again and left out past it: deleted by the sweep', async ({ bot: h }) => {
  await inTwoGuilds(h);
  const clock = { now: Date.parse('2026-11-01T10:00:00Z') };
  const { r, forgotten, watch } = retention(h, 1, clock);

  packet(h.discord.client, 'GUILD_DELETE', { id: GUILD_ID });
  await r.settled();
  expect(await h.departures.get(GUILD_ID)).toBe(clock.now);
  expect(h.logs.find((l) => l.msg === 'guild data scheduled for deletion')).toMatchObject({ guildId: GUILD_ID, reason: 'removed', deleteAfter: '2026-11-01T11:00:00.000Z' });

  clock.now += 30 * 60_000;
  expect(await r.sweep()).toBe(0);
  knowGuild(h.discord.client, GUILD_ID, []); // GUILD_CREATE: added back
  await r.settled();
  expect(h.logs.find((l) => l.msg === 'guild data kept: the bot was added back')).toMatchObject({ guildId: GUILD_ID });
  expect(await h.departures.get(GUILD_ID)).toBeUndefined();
  clock.now += 2 * HOUR;
  expect(await r.sweep()).toBe(0);
  expect(await h.keys.has(GUILD_ID)).toBe(true);

  packet(h.discord.client, 'GUILD_DELETE', { id: GUILD_ID });
  await r.settled();
  clock.now += HOUR - 1;
  expect(await r.sweep()).toBe(0);
  expect(await h.keys.has(GUILD_ID)).toBe(true);
  clock.now += 1;
  expect(await r.sweep()).toBe(1);
  expect(await h.keys.has(GUILD_ID)).toBe(false);
  expect((await h.settings.get(GUILD_ID)).staleAfterDays).toBeUndefined();
  expect(await h.departures.get(GUILD_ID)).toBeUndefined();
  expect(forgotten).toEqual([{ guildId: GUILD_ID, reason: 'removed' }]);
  // Sweeping again (another process, a restart) deletes nothing more and fails on nothing.
  expect(await r.sweep()).toBe(0);
  watch.stop();
});

botTest('the mark survives a restart: a new retention on the same store deletes what is due; a guild back in the cache meanwhile is kept', async ({ bot: h }) => {
  await inTwoGuilds(h);
  const clock = { now: 1_000_000 };
  const first = retention(h, 2, clock);
  packet(h.discord.client, 'GUILD_DELETE', { id: GUILD_ID });
  packet(h.discord.client, 'GUILD_DELETE', { id: OTHER_GUILD_ID });
  await first.r.settled();
  first.watch.stop();

  // "Restarted": OTHER_GUILD_ID is in the cache again (it came back while the bot was down: no guildCreate).
  knowGuild(h.discord.client, OTHER_GUILD_ID, []);
  clock.now += 3 * HOUR;
  const second = retention(h, 2, clock);
  expect(await second.r.sweep()).toBe(1);
  expect(await h.keys.has(GUILD_ID)).toBe(false);
  expect(await h.keys.has(OTHER_GUILD_ID)).toBe(true);
  expect(await h.departures.get(OTHER_GUILD_ID)).toBeUndefined();
  second.watch.stop();
});

botTest('a guild whose shard another process runs, or whose presence is unknown, keeps its mark', async ({ bot: h }) => {
  await inTwoGuilds(h);
  const clock = { now: 0 };
  const { r, watch } = retention(h, 1, clock, (id) => (id === GUILD_ID ? 'notMine' : 'unknown'));
  packet(h.discord.client, 'GUILD_DELETE', { id: GUILD_ID });
  packet(h.discord.client, 'GUILD_DELETE', { id: OTHER_GUILD_ID });
  await r.settled();
  clock.now += 5 * HOUR;
  expect(await r.sweep()).toBe(0);
  expect(await h.departures.get(GUILD_ID)).toBe(0);
  expect(await h.keys.has(OTHER_GUILD_ID)).toBe(true);
  watch.stop();
});

botTest('metrics count forgotten servers by reason', async ({ bot: h }) => {
  const metrics = new BotMetrics({ defaultMetrics: false });
  h.guildData.onForgotten(metrics.onGuildForgotten);
  await h.guildData.forget(GUILD_ID, 'command');
  await h.guildData.forget(OTHER_GUILD_ID, 'removed');
  const text = (await metrics.scrape()).body;
  expect(text).toContain('feedbot_guilds_forgotten_total{reason="command"} 1');
  expect(text).toContain('feedbot_guilds_forgotten_total{reason="removed"} 1');
});
