/**
 * Which channels exist: the Guilds-intent cache without a request, or Discord's REST list (HTTP
 * mode) cached briefly, looked up again before it may call a feed's channel deleted, and not asked
 * again right after a failure. Their types (for /feed import) from the same two sources, as fresh.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChannelType } from 'discord.js';
import { ChannelDirectory } from '../../src/bot/channel-directory.js';
import { createTestDiscord, GUILD_ID, type TestDiscord } from '../helpers/discord.js';
import { knowGuild } from '../bot/known-guilds.js';

const A = '1300000000000000001';
const B = '1300000000000000002';
const NEW = '1300000000000000003';
const channelsPath = `/guilds/${GUILD_ID}/channels`;

let discord: TestDiscord;
let now: number;
let answer: () => Response;

beforeEach(() => {
  discord = createTestDiscord();
  now = 1_000_000;
  answer = () => Response.json([{ id: A, name: 'general', type: 0 }, { id: B, name: 'news', type: 0 }]);
  discord.recorder.respond = (call) => (call.path === channelsPath ? answer() : undefined);
});
afterEach(() => discord.destroy());

const directory = () => new ChannelDirectory(discord.client, { now: () => now });
const lookups = () => discord.calls.filter((c) => c.path === channelsPath).length;

describe('ChannelDirectory.channelIds', () => {
  it('over the gateway: the cache the Guilds intent keeps, never a request', async () => {
    knowGuild(discord.client, GUILD_ID, [A, B]);
    expect(await directory().channelIds(GUILD_ID, 0, [NEW])).toEqual(new Set([A, B]));
    expect(lookups()).toBe(0);
  });

  it('does not trust the empty cache of a guild still unavailable at start-up: asks REST', async () => {
    (discord.client as unknown as { ws: { handlePacket(p: unknown, s: unknown): void } }).ws.handlePacket(
      { t: 'GUILD_CREATE', d: { id: GUILD_ID, unavailable: true } },
      { id: 0 },
    );
    expect(discord.client.guilds.cache.get(GUILD_ID)?.available).toBe(false);
    expect(await directory().channelIds(GUILD_ID, 1_000)).toEqual(new Set([A, B]));
    expect(lookups()).toBe(1);
  });

  it('in HTTP mode: one REST lookup, reused for a minute (names for five)', async () => {
    const dir = directory();
    expect(await dir.channelIds(GUILD_ID, 1_000)).toEqual(new Set([A, B]));
    now += 59_000;
    expect(await dir.channelIds(GUILD_ID, 1_000)).toEqual(new Set([A, B]));
    expect(lookups()).toBe(1);
    now += 2_000;
    answer = () => Response.json([{ id: A, name: 'general', type: 0 }]);
    expect((await dir.names(GUILD_ID, 1_000))?.get(B)).toBe('news');
    expect(lookups()).toBe(1);
    expect(await dir.channelIds(GUILD_ID, 1_000)).toEqual(new Set([A]));
    expect(lookups()).toBe(2);
  });

  it('looks again before saying a channel expected by a feed is missing, at most every 5 s', async () => {
    const dir = directory();
    await dir.channelIds(GUILD_ID, 1_000);
    // A channel created since the lookup, a feed already pointing at it.
    answer = () => Response.json([{ id: A, name: 'general' }, { id: NEW, name: 'brand-new' }]);
    now += 4_000;
    expect(await dir.channelIds(GUILD_ID, 1_000, [NEW])).toEqual(new Set([A, B]));
    expect(lookups()).toBe(1);
    now += 2_000;
    expect(await dir.channelIds(GUILD_ID, 1_000, [NEW])).toEqual(new Set([A, NEW]));
    expect(lookups()).toBe(2);
    // Every expected channel there: the list stays good for the minute.
    now += 30_000;
    expect(await dir.channelIds(GUILD_ID, 1_000, [A, NEW])).toEqual(new Set([A, NEW]));
    expect(lookups()).toBe(2);
  });

  it('unknown when the lookup fails, and not asked again for 15 s', async () => {
    answer = () => Response.json({ message: 'Missing Access', code: 50001 }, { status: 403 });
    const dir = directory();
    expect(await dir.channelIds(GUILD_ID, 1_000)).toBeUndefined();
    now += 10_000;
    expect(await dir.channelIds(GUILD_ID, 1_000)).toBeUndefined();
    expect(lookups()).toBe(1);
    now += 6_000;
    answer = () => Response.json([{ id: A, name: 'general' }]);
    expect(await dir.channelIds(GUILD_ID, 1_000)).toEqual(new Set([A]));
    expect(lookups()).toBe(2);
  });

  it('unknown when Discord is slower than the caller can wait; the answer still fills the cache', async () => {
    discord.latencyMs = 150;
    const dir = directory();
    expect(await dir.channelIds(GUILD_ID, 10)).toBeUndefined();
    // Asked meanwhile with no time to wait: the lookup under way is shared, not repeated.
    await vi.waitFor(async () => expect(await dir.channelIds(GUILD_ID, 0)).toEqual(new Set([A, B])));
    expect(lookups()).toBe(1);
  });
});

describe('ChannelDirectory.channelTypes', () => {
  const VOICE = '1300000000000000004';
  const CATEGORY = '1300000000000000005';

  it("over the gateway: each cached channel's type, never a request", async () => {
    knowGuild(discord.client, GUILD_ID, [A, { id: VOICE, type: ChannelType.GuildVoice }, { id: CATEGORY, type: ChannelType.GuildCategory }]);
    const dir = directory();
    expect(await dir.channelTypes(GUILD_ID, 0)).toEqual(
      new Map([
        [A, ChannelType.GuildText],
        [VOICE, ChannelType.GuildVoice],
        [CATEGORY, ChannelType.GuildCategory],
      ]),
    );
    // Existence is unchanged by knowing types: every channel, whatever its type.
    expect(await dir.channelIds(GUILD_ID, 0)).toEqual(new Set([A, VOICE, CATEGORY]));
    expect(lookups()).toBe(0);
  });

  it("in HTTP mode: the REST list's `type`, from the one lookup that also gives names and existence", async () => {
    answer = () =>
      Response.json([
        { id: A, name: 'general', type: ChannelType.GuildText },
        { id: B, name: 'news', type: ChannelType.GuildAnnouncement },
        { id: VOICE, name: 'Lounge', type: ChannelType.GuildVoice },
        { id: CATEGORY, name: 'Info', type: ChannelType.GuildCategory },
        { id: NEW, name: 'odd' },
      ]);
    const dir = directory();
    expect(await dir.channelTypes(GUILD_ID, 1_000)).toEqual(
      new Map([
        [A, ChannelType.GuildText],
        [B, ChannelType.GuildAnnouncement],
        [VOICE, ChannelType.GuildVoice],
        [CATEGORY, ChannelType.GuildCategory],
        // Discord always says; a list that does not leaves the type unknown, never assumed.
        [NEW, undefined],
      ]),
    );
    expect(await dir.channelIds(GUILD_ID, 1_000)).toEqual(new Set([A, B, VOICE, CATEGORY, NEW]));
    expect((await dir.names(GUILD_ID, 1_000))?.get(VOICE)).toBe('Lounge');
    expect(lookups()).toBe(1);
  });

  it('unknown when the lookup fails', async () => {
    answer = () => Response.json({ message: 'Missing Access', code: 50001 }, { status: 403 });
    expect(await directory().channelTypes(GUILD_ID, 1_000)).toBeUndefined();
  });
});
