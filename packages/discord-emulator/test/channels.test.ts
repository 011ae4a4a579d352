/**
 * Channels created and deleted while the bot runs: CHANNEL_CREATE / CHANNEL_DELETE reach the
 * shard that holds the guild with Discord's channel object, discord.js's cache follows, and the
 * REST API forgets a deleted channel (404 10003), its messages included.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, DiscordAPIError, Events, type Client, type NonThreadGuildBasedChannel, type TextChannel } from 'discord.js';
import type { WebSocket } from 'ws';
import { GuildChangeError, type ChannelEvent, type DiscordEmulator } from '../src/index.js';
import { CHANNEL_ID, GUILD_ID, TOKEN, control as controlRequest, loginClient, startTestEmulator } from './helpers.js';
import { identify, rawGateway, until } from './raw-gateway.js';

let emu: DiscordEmulator;
let client: Client;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  // Several sessions of shard 0 identify here, one after the other.
  emu = await startTestEmulator({ identifyWindowMs: 0 });
  client = await loginClient(emu);
});

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await client?.destroy();
  await emu?.close();
});

const control = (method: string, path: string, body?: unknown) => controlRequest(emu, method, path, body);

async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${emu.restUrl}${path}`, {
    method,
    headers: { authorization: `Bot ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: res.status === 204 ? undefined : await res.json() };
}

const guild = () => client.guilds.cache.get(GUILD_ID)!;

describe('creating a channel', () => {
  it('answers its channel object, and discord.js gets CHANNEL_CREATE with it', async () => {
    const created = once(client, Events.ChannelCreate, { signal: AbortSignal.timeout(3000) }) as Promise<[NonThreadGuildBasedChannel]>;
    const answer = await control('POST', `/guilds/${GUILD_ID}/channels`, { name: 'Audit Log', topic: 'what changed' });
    expect(answer.status).toBe(201);
    // Text channel names are lowercased with dashes, as Discord stores them.
    expect(answer.json).toMatchObject({ type: 0, name: 'audit-log', guild_id: GUILD_ID, topic: 'what changed', permission_overwrites: [], parent_id: null });
    const [channel] = await created;
    expect(channel).toMatchObject({ id: answer.json.id, name: 'audit-log', type: ChannelType.GuildText, guildId: GUILD_ID });
    expect(guild().channels.cache.has(answer.json.id)).toBe(true);

    const listed = await rest('GET', `/guilds/${GUILD_ID}/channels`);
    expect((listed.json as { id: string }[]).map((c) => c.id)).toContain(answer.json.id);
    expect((await rest('GET', `/channels/${answer.json.id}`)).json).toEqual(answer.json);
    expect(emu.channel(answer.json.id)).toEqual(answer.json);
  });

  it('refuses what Discord would: unknown guild, unknown parent, a bad body', async () => {
    expect((await control('POST', '/guilds/999999999999999999/channels', { name: 'x' })).status).toBe(404);
    expect((await control('POST', `/guilds/${GUILD_ID}/channels`, { name: 'x', parentId: CHANNEL_ID })).json).toMatchObject({ error: expect.stringContaining('not a category') });
    expect((await control('POST', `/guilds/${GUILD_ID}/channels`, { name: '' })).status).toBe(400);
    expect(() => emu.createChannel(GUILD_ID, { name: 'voice', type: 1 })).toThrow(GuildChangeError);
  });
});

describe('deleting a channel', () => {
  it('dispatches CHANNEL_DELETE: discord.js drops it from its cache and emits ChannelDelete', async () => {
    const made = emu.createChannel(GUILD_ID, { name: 'doomed' });
    await until(() => guild().channels.cache.has(made.id as string), 3000, 'channel cached');
    const channel = guild().channels.cache.get(made.id as string) as TextChannel;
    await channel.send('before');
    expect(emu.messages({ channelId: channel.id })).toHaveLength(1);

    const deleted = once(client, Events.ChannelDelete, { signal: AbortSignal.timeout(3000) }) as Promise<[NonThreadGuildBasedChannel]>;
    const answer = await control('DELETE', `/channels/${channel.id}`);
    expect(answer).toMatchObject({ status: 200, json: { id: channel.id, name: 'doomed', guild_id: GUILD_ID } });
    const [gone] = await deleted;
    expect(gone.id).toBe(channel.id);
    expect(client.channels.cache.has(channel.id)).toBe(false);
    expect(guild().channels.cache.has(channel.id)).toBe(false);

    // Its messages went with it, and the REST API no longer knows it.
    expect(emu.messages({ channelId: channel.id })).toEqual([]);
    expect(emu.channel(channel.id)).toBeUndefined();
    expect(await rest('GET', `/channels/${channel.id}`)).toEqual({ status: 404, json: { message: 'Unknown Channel', code: 10003 } });
    expect((await rest('GET', `/guilds/${GUILD_ID}/channels`)).json).not.toContainEqual(expect.objectContaining({ id: channel.id }));
    const refused = await channel.send('after').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect(refused).toMatchObject({ status: 404, code: 10003, message: 'Unknown Channel' });
    expect(emu.violations.at(-1)).toMatchObject({ status: 404, code: 10003, route: '/channels/:channel/messages' });
    expect((await control('DELETE', `/channels/${channel.id}`)).status).toBe(404);
  });

  it('a deleted category leaves its channels without a parent (CHANNEL_UPDATE each)', async () => {
    const category = emu.createChannel(GUILD_ID, { name: 'Feeds', type: 4 });
    const child = emu.createChannel(GUILD_ID, { name: 'news', parentId: category.id as string });
    expect(child).toMatchObject({ parent_id: category.id, name: 'news' });
    await until(() => guild().channels.cache.get(child.id as string)?.parentId === category.id, 3000, 'child cached');
    const events: ChannelEvent[] = [];
    const listener = (e: ChannelEvent) => events.push(e);
    emu.events.on('channel', listener);
    emu.deleteChannel(category.id as string);
    emu.events.off('channel', listener);
    expect(events.map((e) => [e.action, e.channel.id])).toEqual([
      ['delete', category.id],
      ['update', child.id],
    ]);
    await until(() => guild().channels.cache.get(child.id as string)?.parentId === null, 3000, 'parent removed');
    expect(emu.channel(child.id as string)).toMatchObject({ parent_id: null });
  });
});

describe('the gateway payloads', () => {
  it('are Discord’s channel object, sent under the Guilds intent only', async () => {
    const withGuilds = await rawGateway(emu, { track: sockets });
    withGuilds.send(identify(TOKEN, [0, 1], 1));
    const without = await rawGateway(emu, { track: sockets });
    without.send(identify(TOKEN, [0, 1], 1 << 9));
    await withGuilds.waitFor((p) => p.t === 'GUILD_CREATE');
    await without.waitFor((p) => p.t === 'GUILD_CREATE');

    const made = emu.createChannel(GUILD_ID, { name: 'raw' });
    emu.deleteChannel(made.id as string);
    const d = (await withGuilds.waitFor((p) => p.t === 'CHANNEL_DELETE')).d;
    expect(d).toEqual({
      id: made.id,
      type: 0,
      name: 'raw',
      position: expect.any(Number),
      permission_overwrites: [],
      parent_id: null,
      flags: 0,
      guild_id: GUILD_ID,
      topic: null,
      nsfw: false,
      rate_limit_per_user: 0,
      last_message_id: null,
    });
    expect(withGuilds.counts.get('CHANNEL_CREATE')).toBe(1);
    // Another dispatch after, to know the one without Guilds had its chance to get them.
    emu.createChannel(GUILD_ID, { name: 'marker' });
    await withGuilds.waitFor((p) => p.t === 'CHANNEL_CREATE' && (p.d as { name: string }).name === 'marker');
    expect(without.counts.get('CHANNEL_CREATE')).toBeUndefined();
    expect(without.counts.get('CHANNEL_DELETE')).toBeUndefined();
  });

  it('a client that logs in after the change gets the guild as it is now', async () => {
    const made = emu.createChannel(GUILD_ID, { name: 'late' });
    emu.deleteChannel(CHANNEL_ID);
    const later = await loginClient(emu);
    try {
      const cached = later.guilds.cache.get(GUILD_ID)!.channels.cache;
      expect(cached.has(made.id as string)).toBe(true);
      expect(cached.has(CHANNEL_ID)).toBe(false);
    } finally {
      await later.destroy();
    }
  });
});
