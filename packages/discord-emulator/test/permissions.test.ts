/**
 * Permissions as Discord computes them (base permissions from roles, Administrator, then the
 * channel's overwrites: @everyone, roles, member), what the bot is refused for lack of them
 * (403 50001 / 50013, seen by discord.js as DiscordAPIError), and what interactions carry.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DiscordAPIError, EmbedBuilder, Events, PermissionFlagsBits, type Client, type Interaction, type TextChannel } from 'discord.js';
import { DEFAULT_EVERYONE_PERMISSIONS, Permission, channelPermissions, normalizeGuild, type DiscordEmulator, type EmulatedGuild, type PermissionOverwrite } from '../src/index.js';
import { APP_ID, CHANNEL_ID, GUILD_ID, OTHER_CHANNEL_ID, SIMPLE_COMMANDS, USER_ID, control as controlRequest, loginClient, startTestEmulator } from './helpers.js';
import { until } from './raw-gateway.js';

const BOT_ROLE = '222222222222222226';
const EVERYONE = BigInt(DEFAULT_EVERYONE_PERMISSIONS);
const QUIET_ROLE = '222222222222222227';

/** The test guild plus a role for the bot and an overwrite configured up front. */
const GUILD: EmulatedGuild = {
  id: GUILD_ID,
  name: 'Permissions Guild',
  ownerId: '444444444444444444',
  channels: [
    { id: CHANNEL_ID, name: 'general', type: 0 },
    { id: OTHER_CHANNEL_ID, name: 'feeds', type: 0, permissionOverwrites: [{ id: QUIET_ROLE, type: 0, allow: '0', deny: String(Permission.SendMessages) }] },
  ],
  roles: [
    { id: BOT_ROLE, name: 'feedbot', permissions: String(Permission.SendMessages | Permission.EmbedLinks) },
    { id: QUIET_ROLE, name: 'Quiet', permissions: '0' },
  ],
  members: [{ userId: USER_ID, username: 'alice', roles: [QUIET_ROLE] }],
};

/** Discord's computation for a member of GUILD with `roles`, in a channel with `overwrites`. */
const applyOverwritesFor = (guild: EmulatedGuild, who: { user: string; roles: string[]; overwrites: PermissionOverwrite[] }) =>
  channelPermissions(normalizeGuild(guild), { permissionOverwrites: who.overwrites }, who.user, who.roles);

let emu: DiscordEmulator;
let client: Client;
let lastInteraction: Interaction | undefined;

beforeAll(async () => {
  emu = await startTestEmulator({ guilds: [GUILD] });
  emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
  client = await loginClient(emu);
  client.on(Events.InteractionCreate, (i) => {
    lastInteraction = i;
    if (i.isChatInputCommand()) void i.reply('ok');
  });
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

beforeEach(() => {
  emu.clearRecords();
  // Every test starts from the configured permissions.
  emu.setBotRoles(GUILD_ID, []);
  emu.setRolePermissions(GUILD_ID, GUILD_ID, DEFAULT_EVERYONE_PERMISSIONS);
  for (const id of [APP_ID, GUILD_ID, BOT_ROLE]) emu.deletePermissionOverwrite(CHANNEL_ID, id);
});

const control = (method: string, path: string, body?: unknown) => controlRequest(emu, method, path, body);
const channel = () => client.channels.cache.get(CHANNEL_ID) as TextChannel;
const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);
const embed = new EmbedBuilder().setTitle('Feed created');

describe('Discord’s algorithm', () => {
  it('applies base permissions, Administrator, then @everyone, role and member overwrites', () => {
    expect(applyOverwritesFor(GUILD, { user: USER_ID, roles: [], overwrites: [] })).toBe(EVERYONE);
    // @everyone denies, a role allows back, the member's own overwrite denies again.
    const overwrites = [
      { id: GUILD_ID, type: 0 as const, allow: '0', deny: String(Permission.SendMessages | Permission.EmbedLinks) },
      { id: QUIET_ROLE, type: 0 as const, allow: String(Permission.SendMessages | Permission.EmbedLinks), deny: '0' },
      { id: USER_ID, type: 1 as const, allow: '0', deny: String(Permission.EmbedLinks) },
    ];
    const bits = applyOverwritesFor(GUILD, { user: USER_ID, roles: [QUIET_ROLE], overwrites });
    expect(bits & Permission.SendMessages).toBe(Permission.SendMessages);
    expect(bits & Permission.EmbedLinks).toBe(0n);
    // Without the role, @everyone's deny stands.
    expect(applyOverwritesFor(GUILD, { user: USER_ID, roles: [], overwrites }) & Permission.SendMessages).toBe(0n);
    // The owner and Administrator ignore overwrites.
    expect(applyOverwritesFor(GUILD, { user: GUILD.ownerId, roles: [], overwrites })).toBe((1n << 54n) - 1n);
  });
});

describe('the bot posting to a channel', () => {
  it('without Send Messages: 403 50013 Missing Permissions, as discord.js reports it', async () => {
    const put = await control('PUT', `/channels/${CHANNEL_ID}/permissions/${APP_ID}`, { type: 1, deny: String(PermissionFlagsBits.SendMessages) });
    expect(put).toMatchObject({ status: 200, json: { permission_overwrites: [{ id: APP_ID, type: 1, allow: '0', deny: String(PermissionFlagsBits.SendMessages) }] } });
    // CHANNEL_UPDATE: discord.js knows it too.
    await until(() => channel().permissionOverwrites.cache.has(APP_ID), 3000, 'overwrite cached');
    expect(channel().permissionsFor(client.user!)!.has(PermissionFlagsBits.SendMessages)).toBe(false);

    const error = await refusal(channel().send('hello'));
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 403, code: 50013, message: 'Missing Permissions' });
    expect(emu.violations).toMatchObject([{ kind: 'forbidden', status: 403, code: 50013, route: '/channels/:channel/messages' }]);
    expect(emu.messages({ channelId: CHANNEL_ID })).toEqual([]);

    expect((await control('DELETE', `/channels/${CHANNEL_ID}/permissions/${APP_ID}`)).json.permission_overwrites).toEqual([]);
    await until(() => !channel().permissionOverwrites.cache.has(APP_ID), 3000, 'overwrite removed');
    await expect(channel().send('hello again')).resolves.toMatchObject({ content: 'hello again' });
  });

  it('without Embed Links: text goes through, an embed gets 50013', async () => {
    emu.setPermissionOverwrite(CHANNEL_ID, GUILD_ID, { type: 0, deny: Permission.EmbedLinks });
    await expect(channel().send('plain')).resolves.toMatchObject({ content: 'plain' });
    expect(await refusal(channel().send({ embeds: [embed] }))).toMatchObject({ status: 403, code: 50013 });
    expect(emu.botPermissions(GUILD_ID, CHANNEL_ID)).toBe(String(EVERYONE & ~Permission.EmbedLinks));
    expect(BigInt(emu.botPermissions(GUILD_ID))).toBe(EVERYONE);
  });

  it('without View Channel: 403 50001 Missing Access, for the channel itself too', async () => {
    emu.setPermissionOverwrite(CHANNEL_ID, GUILD_ID, { type: 0, deny: Permission.ViewChannel });
    expect(await refusal(channel().send('hello'))).toMatchObject({ status: 403, code: 50001, message: 'Missing Access' });
    expect(await refusal(client.rest.get(`/channels/${CHANNEL_ID}`))).toMatchObject({ status: 403, code: 50001 });
    // A role of the bot allowing it back wins over @everyone's deny.
    emu.setPermissionOverwrite(CHANNEL_ID, BOT_ROLE, { type: 0, allow: Permission.ViewChannel });
    emu.setBotRoles(GUILD_ID, [BOT_ROLE]);
    await expect(channel().send('seen again')).resolves.toMatchObject({ content: 'seen again' });
  });

  it('follows the roles: @everyone without Send Messages, then a bot role that has it', async () => {
    const everyone = String(EVERYONE & ~Permission.SendMessages);
    expect(await control('PATCH', `/guilds/${GUILD_ID}/roles/${GUILD_ID}`, { permissions: everyone })).toMatchObject({ status: 200, json: { id: GUILD_ID, permissions: everyone } });
    await until(() => !client.guilds.cache.get(GUILD_ID)!.roles.everyone.permissions.has(PermissionFlagsBits.SendMessages), 3000, 'role update cached');
    expect(await refusal(channel().send('muted'))).toMatchObject({ code: 50013 });

    const member = await control('PUT', `/guilds/${GUILD_ID}/bot-member`, { roles: [BOT_ROLE] });
    expect(member.json).toMatchObject({ member: { user: { id: APP_ID }, roles: [BOT_ROLE] }, permissions: String(BigInt(everyone) | Permission.SendMessages) });
    // The bot's own GUILD_MEMBER_UPDATE arrives whatever its intents.
    await until(() => client.guilds.cache.get(GUILD_ID)!.members.me?.roles.cache.has(BOT_ROLE) === true, 3000, 'bot roles cached');
    expect(await client.rest.get(`/guilds/${GUILD_ID}/members/${APP_ID}`)).toMatchObject({ roles: [BOT_ROLE] });
    await expect(channel().send({ content: 'back', embeds: [embed] })).resolves.toMatchObject({ content: 'back' });
  });

  it('control routes refuse unknown roles, members and malformed bodies', async () => {
    expect((await control('PUT', `/channels/${CHANNEL_ID}/permissions/999999999999999999`, { type: 0, deny: '2048' })).status).toBe(404);
    expect((await control('PUT', `/channels/${CHANNEL_ID}/permissions/999999999999999999`, { type: 1, deny: '2048' })).status).toBe(404);
    expect((await control('PUT', `/channels/${CHANNEL_ID}/permissions/${APP_ID}`, { type: 2 })).status).toBe(400);
    expect((await control('PUT', `/guilds/${GUILD_ID}/bot-member`, { roles: ['999999999999999999'] })).status).toBe(404);
    expect((await control('PATCH', `/guilds/${GUILD_ID}/roles/${BOT_ROLE}`, { permissions: 'all' })).status).toBe(400);
    expect((await control('GET', `/guilds/${GUILD_ID}/bot-member?channelId=${OTHER_CHANNEL_ID}`)).json).toMatchObject({ member: { roles: [] }, channelPermissions: DEFAULT_EVERYONE_PERMISSIONS });
  });
});

describe('configured overwrites and interactions', () => {
  it('GUILD_CREATE and GET /channels/{id} carry permission_overwrites', async () => {
    const feeds = client.channels.cache.get(OTHER_CHANNEL_ID) as TextChannel;
    expect(feeds.permissionOverwrites.cache.get(QUIET_ROLE)?.deny.has(PermissionFlagsBits.SendMessages)).toBe(true);
    expect(await client.rest.get(`/channels/${OTHER_CHANNEL_ID}`)).toMatchObject({ permission_overwrites: [{ id: QUIET_ROLE, type: 0, allow: '0', deny: '2048' }] });
  });

  it('app_permissions and member.permissions are computed in the interaction’s channel', async () => {
    emu.setPermissionOverwrite(CHANNEL_ID, APP_ID, { type: 1, deny: Permission.EmbedLinks });
    const inGeneral = emu.sendInteraction({ type: 'command', commandName: 'ping', channelId: CHANNEL_ID, userId: USER_ID });
    await inGeneral.waitForFinal();
    expect(inGeneral.payload.app_permissions).toBe(emu.botPermissions(GUILD_ID, CHANNEL_ID));
    expect(lastInteraction!.appPermissions.has(PermissionFlagsBits.EmbedLinks)).toBe(false);
    expect(lastInteraction!.memberPermissions!.has(PermissionFlagsBits.SendMessages)).toBe(true);

    // In #feeds, alice's Quiet role is denied Send Messages; the bot is not.
    const inFeeds = emu.sendInteraction({ type: 'command', commandName: 'ping', channelId: OTHER_CHANNEL_ID, userId: USER_ID });
    await inFeeds.waitForFinal();
    expect(lastInteraction!.appPermissions.has(PermissionFlagsBits.EmbedLinks)).toBe(true);
    expect(lastInteraction!.memberPermissions!.has(PermissionFlagsBits.SendMessages)).toBe(false);
  });

  it('a resolved channel carries the invoker’s permissions and the bot’s app_permissions there', async () => {
    emu.setPermissionOverwrite(OTHER_CHANNEL_ID, APP_ID, { type: 1, deny: Permission.EmbedLinks });
    try {
      const handle = emu.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'add', options: { handle: 'nasa', channel: OTHER_CHANNEL_ID }, userId: USER_ID });
      await handle.waitForFinal();
      const data = handle.payload.data as unknown as { resolved: { channels: Record<string, unknown> } };
      const resolved = data.resolved.channels[OTHER_CHANNEL_ID];
      expect(resolved).toEqual({
        id: OTHER_CHANNEL_ID,
        name: 'feeds',
        type: 0,
        guild_id: GUILD_ID,
        parent_id: null,
        position: 0,
        flags: 0,
        topic: null,
        nsfw: false,
        rate_limit_per_user: 0,
        last_message_id: null,
        permissions: String(EVERYONE & ~Permission.SendMessages),
        app_permissions: String(EVERYONE & ~Permission.EmbedLinks),
      });
      if (!lastInteraction?.isChatInputCommand()) throw new Error('not a command');
      expect(lastInteraction.options.getChannel('channel')?.id).toBe(OTHER_CHANNEL_ID);
    } finally {
      emu.deletePermissionOverwrite(OTHER_CHANNEL_ID, APP_ID);
    }
  });
});
