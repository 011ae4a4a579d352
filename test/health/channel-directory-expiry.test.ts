/**
 * Memory per server, HTTP mode: a channel list fetched over REST, or a failed lookup, is
 * forgotten once it can no longer be used, instead of staying until 1,000 newer guilds push it
 * out. The directory's own clock (`now`) drives the expiry.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChannelDirectory } from '../../src/bot/channel-directory.js';
import { createTestDiscord, type TestDiscord } from '../helpers/discord.js';

const guildIds = Array.from({ length: 50 }, (_, i) => String(1_400_000_000_000_000_000n + BigInt(i)));
const failing = new Set([guildIds[0], guildIds[1]].map((id) => `/guilds/${id}/channels`));

let discord: TestDiscord;
let now: number;

beforeEach(() => {
  discord = createTestDiscord();
  now = 1_000_000;
  discord.recorder.respond = (call) =>
    failing.has(call.path) ? Response.json({ message: 'Missing Access', code: 50001 }, { status: 403 }) : Response.json([{ id: '1300000000000000001', name: 'general', type: 0 }]);
});
afterEach(() => discord.destroy());

it('forgets channel lists after their lifetime and failures after their pause', async () => {
  const ttlMs = 300_000;
  const directory = new ChannelDirectory(discord.client, { now: () => now, ttlMs, retryAfterFailureMs: 15_000 });
  for (const id of guildIds) await directory.names(id, 5_000);
  expect(directory.remembered).toBe(guildIds.length);
  now += ttlMs;
  // The next lookup, for any guild, drops what has expired.
  await directory.names(guildIds.at(-1)!, 5_000);
  expect(directory.remembered).toBe(1);
});
