/**
 * The bot removed from a guild and added back (the health stories' stand-in): discord.js gets guildDelete
 * (not guildUnavailable) and then guildCreate, the bot's REST calls about the guild answer 10004
 * meanwhile, and `GET /users/@me/guilds` pages the guilds the bot is in with `after` / `limit`.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Events, Routes, type Client, type Guild } from 'discord.js';
import type { DiscordEmulator, EmulatedGuild } from '../src/index.js';
import { CHANNEL_ID, GUILD, GUILD_ID, TOKEN, control as controlRequest, loginClient, startTestEmulator } from './helpers.js';

/** 250 more guilds: more than one page of 200. */
const MORE: EmulatedGuild[] = Array.from({ length: 250 }, (_, i) => ({
  id: String(300000000000000000n + BigInt(i) * 4194304n),
  name: `guild ${i}`,
  ownerId: '444444444444444444',
  channels: [{ id: String(400000000000000000n + BigInt(i)), name: 'general', type: 0 }],
  roles: [],
}));

let emu: DiscordEmulator;
let client: Client;

beforeAll(async () => {
  emu = await startTestEmulator({ guilds: [GUILD, ...MORE] });
  client = await loginClient(emu);
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

const control = (method: string, path: string, body?: unknown) => controlRequest(emu, method, path, body);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
async function rest(path: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${emu.restUrl}${path}`, { headers: { authorization: `Bot ${TOKEN}` } });
  return { status: res.status, json: await res.json() };
}

/** Every page of `GET /users/@me/guilds`, as a bot pages it. */
async function allGuildIds(limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  for (let after: string | undefined; ; ) {
    const page = (await rest(`/users/@me/guilds?limit=${limit}${after ? `&after=${after}` : ''}`)).json as { id: string }[];
    pages += 1;
    ids.push(...page.map((g) => g.id));
    if (page.length < limit) return { ids, pages };
    after = page.at(-1)!.id;
  }
}

describe('removing the bot from a guild', () => {
  it('sends GUILD_DELETE without unavailable: guildDelete, not guildUnavailable; REST answers 10004 and the list leaves it out', async () => {
    const unavailable: Guild[] = [];
    client.on(Events.GuildUnavailable, (g) => unavailable.push(g));
    const deleted = once(client, Events.GuildDelete, { signal: AbortSignal.timeout(3000) }) as Promise<[Guild]>;
    const answer = await control('DELETE', `/guilds/${GUILD_ID}/bot`);
    expect(answer).toMatchObject({ status: 200, json: { guildId: GUILD_ID, member: false, shards: [0] } });
    expect((await deleted)[0].id).toBe(GUILD_ID);
    expect(unavailable).toEqual([]);
    expect(client.guilds.cache.has(GUILD_ID)).toBe(false);
    expect(emu.botInGuild(GUILD_ID)).toBe(false);

    expect(await rest(`/guilds/${GUILD_ID}`)).toMatchObject({ status: 404, json: { code: 10004, message: 'Unknown Guild' } });
    expect((await rest(`/channels/${CHANNEL_ID}`)).json.code).toBe(10003);
    await expect(client.rest.get(Routes.guild(GUILD_ID))).rejects.toMatchObject({ code: 10004 });
    expect((await allGuildIds(200)).ids).not.toContain(GUILD_ID);
    // Twice is refused: the bot is not there.
    expect((await control('DELETE', `/guilds/${GUILD_ID}/bot`)).status).toBe(400);
  });

  it('adding it back sends GUILD_CREATE with the whole guild: guildCreate, and REST answers again', async () => {
    const created = once(client, Events.GuildCreate, { signal: AbortSignal.timeout(3000) }) as Promise<[Guild]>;
    expect(await control('PUT', `/guilds/${GUILD_ID}/bot`, {})).toMatchObject({ status: 200, json: { member: true } });
    const [guild] = await created;
    expect(guild.id).toBe(GUILD_ID);
    expect(guild.channels.cache.has(CHANNEL_ID)).toBe(true);
    expect((await rest(`/guilds/${GUILD_ID}`)).status).toBe(200);
    expect((await control('PUT', `/guilds/${GUILD_ID}/bot`, {})).status).toBe(400);
    expect((await control('DELETE', '/guilds/999999999999999999/bot')).status).toBe(404);
  });
});

describe('GET /users/@me/guilds', () => {
  it('pages every guild in id order with after and limit (200 at most a page)', async () => {
    const all = [GUILD, ...MORE].map((g) => g.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect(await allGuildIds(200)).toEqual({ ids: all, pages: 2 });
    expect(await allGuildIds(100)).toEqual({ ids: all, pages: 3 });
    const first = (await rest('/users/@me/guilds')).json as { id: string; name: string; owner: boolean; permissions: string }[];
    expect(first).toHaveLength(200);
    expect(first[0]).toEqual({ id: all[0], name: expect.any(String), icon: null, banner: null, owner: false, permissions: '0', features: [] });
  });

  it('refuses a limit outside 1–200 and a bound that is not a snowflake (50035)', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'after=abc']) {
      expect(await rest(`/users/@me/guilds?${query}`)).toMatchObject({ status: 400, json: { code: 50035 } });
    }
  });
});
