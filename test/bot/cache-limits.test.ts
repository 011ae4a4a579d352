/**
 * discord.js's caches hold only what feedbot reads (memory per server). A real client
 * from src/bot/discord-client.ts logs in to the Discord emulator; what the emulator cannot send
 * (emoji, stickers, voice states, soundboard sounds, threads, members joining) goes through
 * discord.js's own packet handler (`client.ws.handlePacket`), as if the gateway had sent it.
 * The features that need the cache must keep working: channel names, deleted channels, the
 * audit channel's permission check (overwrites, roles, the bot's member) and manager roles.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Events, PermissionFlagsBits, type Client, type GuildBasedChannel } from 'discord.js';
import { generateGuilds, makeBotToken, startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { missingPostPermissions } from '../../src/audit/post-permissions.js';
import { ChannelDirectory } from '../../src/bot/channel-directory.js';
import { THREAD_SWEEP_INTERVAL_S, createDiscordClient } from '../../src/bot/discord-client.js';
import { silentLogger } from '../../src/logger.js';
import { roleDeleted } from '../../src/settings/role-watch.js';
import { listenTo } from '../../src/bot/gateway-listeners.js';
import { GuildSettingsStore } from '../../src/settings/store.js';

const APP_ID = '1200000000000000001';
const [GUILD] = generateGuilds(1, { roles: 2 });
const guild = { ...GUILD!, members: [{ userId: '300000000000000001', username: 'alice' }, { userId: '300000000000000002', username: 'bob' }] };
const guildId = guild.id;
const [category, general, second] = guild.channels;
const [, adminRole, plainRole] = guild.roles;

let emu: DiscordEmulator;
let client: Client;
let dir: string;
let settings: GuildSettingsStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-cache-limits-'));
  const token = makeBotToken(APP_ID);
  emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: [guild] });
  client = createDiscordClient({ apiUrl: emu.apiUrl });
  settings = await GuildSettingsStore.open({ databaseUrl: join(dir, 'settings.sqlite'), logger: silentLogger() });
  const ready = once(client, Events.ClientReady);
  await client.login(token);
  await ready;
}, 30_000);

afterAll(async () => {
  await client?.destroy();
  await settings?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cachedGuild = () => client.guilds.cache.get(guildId)!;

/** A gateway dispatch handed to discord.js's own packet handler, as the shard would. */
function dispatch(t: string, d: Record<string, unknown>): void {
  // handlePacket is private in the typings: the gateway's own entry point into discord.js.
  (client.ws as unknown as { handlePacket(packet: unknown, shard: unknown): void }).handlePacket({ op: 0, t, d, s: 0 }, client.ws.shards.first());
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('what feedbot reads stays cached', () => {
  it('channel names, types and the guild roles come from the cache', async () => {
    const names = await new ChannelDirectory(client).names(guildId, 0);
    expect(names?.get(general!.id)).toBe(general!.name);
    expect(names?.get(category!.id)).toBe(category!.name);
    expect(cachedGuild().roles.cache.map((r) => r.name).sort()).toEqual(['@everyone', adminRole!.name, plainRole!.name].sort());
  });

  it('the audit channel check follows overwrites, roles and the bot member from the cache', async () => {
    expect(await missingPostPermissions(client, guildId, second!.id)).toEqual([]);
    emu.setPermissionOverwrite(second!.id, guildId, { type: 0, deny: PermissionFlagsBits.SendMessages });
    await until(async () => (await missingPostPermissions(client, guildId, second!.id)).length > 0);
    expect(await missingPostPermissions(client, guildId, second!.id)).toEqual(['SendMessages']);
    const channel = cachedGuild().channels.cache.get(second!.id);
    expect(channel && 'permissionOverwrites' in channel ? channel.permissionOverwrites.cache.size : -1).toBe(1);
    // The bot's member gains the Administrator role: every channel permission, overwrites or not.
    emu.setBotRoles(guildId, [adminRole!.id]);
    await until(async () => (await missingPostPermissions(client, guildId, second!.id)).length === 0);
    expect(cachedGuild().members.me?.roles.cache.has(adminRole!.id)).toBe(true);
  });

  it('a deleted channel is announced with its name and leaves the channel list', async () => {
    const deleted = once(client, Events.ChannelDelete) as Promise<[GuildBasedChannel]>;
    emu.deleteChannel(general!.id);
    const [channel] = await deleted;
    expect({ id: channel.id, name: channel.name, guildId: channel.guildId }).toEqual({ id: general!.id, name: general!.name, guildId });
    const ids = await new ChannelDirectory(client).channelIds(guildId, 0);
    expect(ids?.has(general!.id)).toBe(false);
    expect(ids?.has(second!.id)).toBe(true);
  });

  it('a deleted role leaves the feed managers', async () => {
    const watch = listenTo(client, [roleDeleted], { settings, logger: silentLogger() });
    await settings.update(guildId, (current) => ({ ...current, managerRoleIds: [plainRole!.id] }));
    dispatch('GUILD_ROLE_DELETE', { guild_id: guildId, role_id: plainRole!.id });
    await watch.settled();
    expect((await settings.get(guildId)).managerRoleIds).toEqual([]);
    expect(cachedGuild().roles.cache.has(plainRole!.id)).toBe(false);
  });
});

describe('what feedbot never reads is not cached', () => {
  it('members other than the bot are not cached, the bot is', () => {
    expect([...cachedGuild().members.cache.keys()]).toEqual([client.user!.id]);
    dispatch('GUILD_MEMBER_ADD', { guild_id: guildId, user: { id: '300000000000000003', username: 'carol', discriminator: '0' }, roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false });
    expect(cachedGuild().members.cache.size).toBe(1);
    expect(client.users.cache.size).toBe(1);
  });

  it('emoji are not cached', () => {
    dispatch('GUILD_EMOJIS_UPDATE', { guild_id: guildId, emojis: [{ id: '400000000000000001', name: 'wave', roles: [], animated: false, available: true }] });
    expect(cachedGuild().emojis.cache.size).toBe(0);
  });

  it('stickers are not cached', () => {
    dispatch('GUILD_STICKERS_UPDATE', { guild_id: guildId, stickers: [{ id: '400000000000000002', name: 'hi', tags: 'hi', type: 2, format_type: 1, guild_id: guildId }] });
    expect(cachedGuild().stickers.cache.size).toBe(0);
  });

  it('voice states and presences are not cached', () => {
    dispatch('VOICE_STATE_UPDATE', { guild_id: guildId, channel_id: null, user_id: '300000000000000001', session_id: 'x', deaf: false, mute: false, self_deaf: false, self_mute: false, self_video: false, suppress: false, request_to_speak_timestamp: null });
    dispatch('PRESENCE_UPDATE', { guild_id: guildId, user: { id: '300000000000000001' }, status: 'online', activities: [], client_status: { desktop: 'online' } });
    expect(cachedGuild().voiceStates.cache.size).toBe(0);
    expect(cachedGuild().presences.cache.size).toBe(0);
  });

  it('threads are swept, soundboard sounds and messages are not cached', () => {
    dispatch('THREAD_CREATE', { id: '400000000000000003', guild_id: guildId, parent_id: second!.id, type: 11, name: 'thread', owner_id: '300000000000000001', thread_metadata: { archived: false, auto_archive_duration: 60, archive_timestamp: new Date().toISOString(), locked: false }, member_count: 1, message_count: 0 });
    dispatch('GUILD_SOUNDBOARD_SOUND_CREATE', { sound_id: '400000000000000004', guild_id: guildId, name: 'beep', volume: 1, emoji_id: null, emoji_name: null, available: true });
    const channel = cachedGuild().channels.cache.get(second!.id);
    // discord.js keeps a thread in client.channels whatever the thread managers' limit; the
    // client's thread sweeper (every THREAD_SWEEP_INTERVAL_S) drops it: run now with its own filter.
    const sweep = client.options.sweepers?.threads;
    expect(sweep?.interval).toBe(THREAD_SWEEP_INTERVAL_S);
    const filter = sweep && 'filter' in sweep ? sweep.filter?.() : null;
    expect(filter).toBeTypeOf('function');
    client.sweepers.sweepThreads(filter!);
    expect(client.channels.cache.has('400000000000000003')).toBe(false);
    expect(cachedGuild().channels.cache.has('400000000000000003')).toBe(false);
    expect(channel?.isTextBased() && 'threads' in channel ? channel.threads.cache.size : -1).toBe(0);
    expect(cachedGuild().soundboardSounds.cache.size).toBe(0);
    expect(channel?.isTextBased() ? channel.messages.cache.size : -1).toBe(0);
  });

  it('application commands are not cached', async () => {
    emu.setCommands([{ name: 'ping', description: 'Ping', type: 1 }], guildId);
    const fetched = await cachedGuild().commands.fetch();
    expect(fetched.size).toBe(1);
    expect(cachedGuild().commands.cache.size).toBe(0);
  });
});
