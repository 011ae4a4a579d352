import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, Events, MessageFlags, type Client } from 'discord.js';
import type { DiscordEmulator, InteractionSnapshot } from '../src/index.js';
import { ADMIN_ROLE_ID, GUILD_ID, SIMPLE_COMMANDS, USER_ID, control as controlRequest, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator;
let client: Client;

beforeAll(async () => {
  emu = await startTestEmulator({ ackDeadlineMs: 2000 });
  emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
  client = await loginClient(emu);
  client.on(Events.InteractionCreate, async (i) => {
    if (i.isChatInputCommand()) {
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('again').setLabel('Again').setStyle(ButtonStyle.Primary));
      await i.reply({ content: `hola ${i.user.username} (${i.locale})`, components: [row], flags: MessageFlags.Ephemeral });
    } else if (i.isButton()) {
      await i.update({ content: 'pressed', components: [] });
    } else if (i.isAutocomplete()) {
      await i.respond([{ name: 'one', value: '1' }]);
    }
  });
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

beforeEach(() => emu.clearRecords());

const control = (method: string, path: string, body?: unknown) => controlRequest(emu, method, path, body);

describe('control API', () => {
  it('describes the emulator, its guilds and commands', async () => {
    const info = await control('GET', '');
    expect(info.json).toMatchObject({ apiUrl: emu.apiUrl, gatewayUrl: emu.gatewayUrl, guildCount: 1, shards: [{ shard: [0, 1], connected: true }] });
    expect(JSON.stringify(info.json)).not.toContain('token-not-a-secret');
    const guilds = await control('GET', '/guilds?limit=10');
    expect(guilds.json).toMatchObject({ total: 1, guilds: [{ id: GUILD_ID, name: 'Test Guild' }] });
    const commands = await control('GET', `/commands?guildId=${GUILD_ID}`);
    expect(commands.json.guild.map((c: { name: string }) => c.name)).toEqual(['feed', 'ping', 'admin']);
  });

  it('sends a command, waits for the final answer, presses the button and reads the records', async () => {
    const sent = await control('POST', '/interactions', { type: 'command', commandName: 'ping', userId: USER_ID, locale: 'es-ES' });
    expect(sent.status).toBe(201);
    const id = (sent.json as InteractionSnapshot).id;
    const final = await control('POST', `/interactions/${id}/wait?for=final&timeoutMs=3000`);
    expect(final.status).toBe(200);
    expect(final.json.original).toMatchObject({ content: 'hola alice (es-ES)', flags: 64 });
    const messageId = final.json.original.id as string;
    const press = await control('POST', `/messages/${messageId}/press`, { customId: 'again' });
    expect(press.status).toBe(201);
    const pressed = await control('POST', `/interactions/${press.json.id}/wait?for=final`);
    expect(pressed.json).toMatchObject({ kind: 'component', userId: USER_ID, ack: { type: 7 }, original: { id: messageId, content: 'pressed' } });
    expect((await control('GET', `/messages/${messageId}`)).json.content).toBe('pressed');
    const calls = await control('GET', '/calls');
    expect(calls.json.map((c: { route: string }) => c.route)).toEqual(['/interactions/:id/:token/callback', '/interactions/:id/:token/callback']);
    expect((await control('GET', '/violations')).json).toEqual([]);
    expect((await control('GET', `/interactions/${id}`)).json.id).toBe(id);
  });

  it('answers 400 for an invalid request, 422 for an impossible interaction, 404 for unknown ids', async () => {
    const invalid = await control('POST', '/interactions', { type: 'command', commandName: 42 });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error).toBe('invalid request');
    const impossible = await control('POST', '/interactions', { type: 'command', commandName: 'missing' });
    expect(impossible.status).toBe(422);
    expect(impossible.json.error).toMatch(/not registered/);
    expect((await control('GET', '/interactions/999999999999999999')).status).toBe(404);
    expect((await control('GET', '/nope')).status).toBe(404);
  });

  it('streams events over SSE', async () => {
    const abort = new AbortController();
    const res = await fetch(`${emu.controlUrl}/events?types=interaction,call,channel,guild`, { signal: abort.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 3000;
      while (!text.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`SSE: ${needle} not seen`);
        const { value, done } = await reader.read();
        if (done) throw new Error('SSE stream ended');
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil('event: hello');
    await control('POST', '/interactions', { type: 'autocomplete', commandName: 'feed', subcommand: 'add', options: { handle: 'n' }, focused: 'handle' });
    await readUntil('"choices":[{"name":"one","value":"1"}]');
    await readUntil('event: call');
    expect(text).toContain('event: interaction');
    const made = emu.createChannel(GUILD_ID, { name: 'streamed' });
    await readUntil(`event: channel\ndata: {"action":"create","guildId":"${GUILD_ID}","channel":{"id":"${String(made.id)}"`);
    emu.setBotRoles(GUILD_ID, [ADMIN_ROLE_ID]);
    await readUntil(`event: guild\ndata: {"action":"bot_member_update","guildId":"${GUILD_ID}"`);
    emu.setBotRoles(GUILD_ID, []);
    expect(text).not.toContain('event: gateway');
    abort.abort();
    await reader.cancel().catch(() => {});
  });
});
