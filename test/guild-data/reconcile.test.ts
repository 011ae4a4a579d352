/**
 * HTTP mode has no gateway: the reconciliation pages the bot's guilds (`GET /users/@me/guilds`,
 * 200 a page with `after`) from a real Discord emulator and marks the stored servers the bot is no
 * longer in; the retention then deletes them (GUILD_DATA_RETENTION_HOURS=0 here at once). The
 * presence check asks Discord (`GET /guilds/{id}`: 10004 once removed).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REST } from 'discord.js';
import { startEmulator, type DiscordEmulator, type EmulatedGuild } from '@feedbot/discord-emulator';
import { createBotHarness, type BotHarness } from '../helpers/bot.js';
import { GuildDataRetention } from '../../src/guild-data/retention.js';
import { GuildReconciler, botGuildIds } from '../../src/guild-data/reconcile.js';
import { restPresence } from '../../src/guild-data/presence.js';

const TOKEN = 'MTIwMDAwMDAwMDAwMDAwMDAx.emulator.reconcile-test-token';
/** 230 guilds: more than one page. */
const GUILDS: EmulatedGuild[] = Array.from({ length: 230 }, (_, i) => ({
  id: String(1100000000000000100n + BigInt(i) * 4194304n),
  name: `guild ${i}`,
  ownerId: '1400000000000000009',
  channels: [{ id: String(1300000000000000100n + BigInt(i)), name: 'general', type: 0 }],
  roles: [],
}));
const [STAYS, LEAVES, ALSO_LEAVES] = [GUILDS[3]!.id, GUILDS[210]!.id, GUILDS[7]!.id];

let emu: DiscordEmulator;
let rest: REST;
let h: BotHarness;

beforeAll(async () => {
  emu = await startEmulator({ applicationId: '1200000000000000001', botToken: TOKEN, guilds: GUILDS });
  rest = new REST({ api: emu.apiUrl }).setToken(TOKEN);
  h = await createBotHarness();
});

afterAll(async () => {
  await h?.close();
  await emu?.close();
});

test('pages every guild the bot is in', async () => {
  const ids = await botGuildIds(rest);
  expect(ids.size).toBe(230);
  const pages = emu.calls.filter((c) => c.path.startsWith('/users/@me/guilds'));
  expect(pages.map((c) => c.query)).toEqual([{ limit: '200' }, { limit: '200', after: [...ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[199] }]);
});

test('stored servers the bot left are marked and, with no retention, deleted; the others are kept', async () => {
  for (const id of [STAYS, LEAVES]) await h.setKey(id);
  await h.settings.update(ALSO_LEAVES, (s) => ({ ...s, staleAfterDays: 4 }));
  emu.removeBotFromGuild(LEAVES);
  emu.removeBotFromGuild(ALSO_LEAVES);

  const retention = new GuildDataRetention({
    services: { keys: h.keys, settings: h.settings, pending: h.pending, departures: h.departures },
    retentionHours: 0,
    presence: restPresence({ rest }),
    logger: h.logger,
  });
  const reconciler = new GuildReconciler({ rest, databaseUrl: `${h.dir}/keys.sqlite`, retention, departures: h.departures, logger: h.logger });
  expect(await reconciler.run()).toEqual({ left: 2, inBot: 228 });
  await retention.settled();
  expect(await h.keys.has(LEAVES)).toBe(false);
  expect((await h.settings.get(ALSO_LEAVES)).staleAfterDays).toBeUndefined();
  expect(await h.keys.has(STAYS)).toBe(true);
  expect(h.logs.filter((l) => l.msg === 'guild data deleted').map((l) => l.guildId).sort()).toEqual([ALSO_LEAVES, LEAVES].sort());
});

test('with a retention, a guild marked by the reconciliation and back in the list by the next is kept', async () => {
  const clock = { now: 1_000_000 };
  const retention = new GuildDataRetention({
    services: { keys: h.keys, settings: h.settings, pending: h.pending, departures: h.departures },
    retentionHours: 1,
    presence: restPresence({ rest }),
    logger: h.logger,
    now: () => clock.now,
  });
  const reconciler = new GuildReconciler({ rest, databaseUrl: `${h.dir}/keys.sqlite`, retention, departures: h.departures, logger: h.logger, now: () => clock.now });
  emu.removeBotFromGuild(STAYS);
  await reconciler.run();
  expect(await h.departures.get(STAYS)).toBe(clock.now);
  emu.addBotToGuild(STAYS);
  await reconciler.run();
  expect(await h.departures.get(STAYS)).toBeUndefined();

  // Removed again, and added back only after the mark is due: the sweep asks Discord first.
  emu.removeBotFromGuild(STAYS);
  await reconciler.run();
  emu.addBotToGuild(STAYS);
  clock.now += 2 * 3_600_000;
  expect(await retention.sweep()).toBe(0);
  expect(await h.keys.has(STAYS)).toBe(true);
  expect(await h.departures.get(STAYS)).toBeUndefined();
});
