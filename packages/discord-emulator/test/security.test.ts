/**
 * What a web page open while the emulator runs can do to it: nothing. It cannot reach it under
 * its own name (DNS rebinding), its simple cross-site requests (a text/plain or form POST, which
 * browsers send without asking) never reach a handler, and a write carrying its Origin is refused.
 * The bot, which talks JSON and multipart, is not affected.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AttachmentBuilder, Events, type Client, type TextChannel } from 'discord.js';
import type { DiscordEmulator } from '../src/index.js';
import { APP_ID, CHANNEL_ID, GUILD_ID, SIMPLE_COMMANDS, TOKEN, loginClient, startTestEmulator } from './helpers.js';
import { rawRequest, upgradeStatus, type RawRequest } from './raw-http.js';

let emu: DiscordEmulator;
let client: Client;
let port: string;

beforeAll(async () => {
  // Long deadline: the interactions here are answered by the test, or by nobody.
  emu = await startTestEmulator({ ackDeadlineMs: 60_000 });
  emu.setCommands([...SIMPLE_COMMANDS, { name: 'export', description: 'Export' }], GUILD_ID);
  client = await loginClient(emu);
  port = new URL(emu.apiUrl).port;
  client.on(Events.InteractionCreate, async (i) => {
    if (!i.isChatInputCommand() || i.commandName !== 'export') return;
    const file = (name: string) => new AttachmentBuilder(Buffer.from('a,b\n'), { name });
    await i.reply({ content: 'reply', files: [file('reply.csv')] });
    await i.editReply({ content: 'edited', files: [file('edit.csv')] });
    await i.followUp({ content: 'follow-up', files: [file('follow-up.csv')] });
    const channel = i.client.channels.cache.get(CHANNEL_ID) as TextChannel;
    const sent = await channel.send({ content: 'channel', files: [file('channel.csv')] });
    await sent.edit({ content: 'channel edited', files: [file('channel-edit.csv')] });
  });
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

beforeEach(() => emu.clearRecords());

const send = (req: RawRequest) => rawRequest(emu.apiUrl, req);
const json = (body: unknown) => JSON.stringify(body);
/** An interaction nobody answers, to aim callbacks at. */
const pending = () => emu.sendInteraction({ type: 'command', commandName: 'ping' });

describe('only its own Host (DNS rebinding)', () => {
  const foreign = () => `evil.example:${port}`;

  it('refuses any other Host with 421 and a JSON error, before routing', async () => {
    const before = emu.interactions().length;
    const attempts: RawRequest[] = [
      { path: '/_emulator' },
      { path: '/_emulator/events' },
      { method: 'POST', path: '/_emulator/interactions', headers: { 'content-type': 'application/json' }, body: json({ type: 'command', commandName: 'ping' }) },
      { path: '/api/v10/gateway' },
      { path: '/api/v10/users/@me', headers: { authorization: `Bot ${TOKEN}` } },
      { method: 'POST', path: `/api/v10/channels/${CHANNEL_ID}/messages`, headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' }, body: json({ content: 'x' }) },
      { path: '/nothing-here' },
    ];
    for (const attempt of attempts) {
      const answer = await send({ ...attempt, headers: { ...attempt.headers, host: foreign() } });
      expect(answer.status, attempt.path).toBe(421);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(JSON.parse(answer.text)).toMatchObject({ error: expect.stringMatching(/host/i) });
    }
    expect(emu.interactions()).toHaveLength(before);
    expect(emu.calls).toEqual([]);
    expect(emu.messages({ channelId: CHANNEL_ID }).filter((m) => m.content === 'x')).toEqual([]);
  });

  it('refuses a loopback name on another port, and a name that merely starts like its own', async () => {
    for (const host of [`localhost:${Number(port) + 1}`, `127.0.0.1:${port}.evil.example`, `127.0.0.1`, `localhost`]) {
      expect((await send({ path: '/_emulator', headers: { host } })).status, host).toBe(421);
    }
  });

  it('answers under its own names', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect((await send({ path: '/_emulator', headers: { host } })).status, host).toBe(200);
    }
  });

  it('refuses a gateway handshake under another Host or from a web page', async () => {
    expect(await upgradeStatus(emu.apiUrl, { host: foreign() })).toBe(421);
    expect(await upgradeStatus(emu.apiUrl, { origin: 'http://localhost:5173' })).toBe(403);
    expect(await upgradeStatus(emu.apiUrl, {})).toBe(101);
  });
});

describe('writes carry JSON', () => {
  it('refuses a simple cross-site POST to the control API with 415', async () => {
    const before = emu.interactions().length;
    const command = json({ type: 'command', commandName: 'ping' });
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
      const answer = await send({ method: 'POST', path: '/_emulator/interactions', headers, body: command });
      expect(answer.status, type).toBe(415);
      expect(JSON.parse(answer.text)).toMatchObject({ error: expect.stringMatching(/application\/json/) });
    }
    // Even without a body: a bodyless no-cors POST must not make the gateway reconnect.
    expect((await send({ method: 'POST', path: '/_emulator/gateway/reconnect' })).status).toBe(415);
    expect((await send({ method: 'DELETE', path: '/_emulator/records', headers: { 'content-type': 'text/plain' }, body: '{}' })).status).toBe(415);
    expect(emu.interactions()).toHaveLength(before);
    expect(emu.shards().every((s) => s.connected)).toBe(true);
  });

  it('accepts JSON, with or without parameters', async () => {
    const answer = await send({ method: 'POST', path: '/_emulator/gateway/reconnect', headers: { 'content-type': 'Application/JSON; charset=utf-8' }, body: json({ shardId: 99 }) });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ reconnecting: 0 });
  });

  it('refuses a text/plain REST write with 415: the interaction stays unanswered, no message is created', async () => {
    const handle = pending();
    const callback = `/api/v10/interactions/${handle.id}/${handle.token}/callback`;
    const reply = json({ type: 4, data: { content: 'pwned' } });
    const plain = await send({ method: 'POST', path: callback, headers: { 'content-type': 'text/plain' }, body: reply });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.text)).toMatchObject({ code: 0, message: expect.stringMatching(/Unsupported Media Type/) });
    expect(handle.snapshot().state).toBe('pending');
    const message = await send({
      method: 'POST',
      path: `/api/v10/channels/${CHANNEL_ID}/messages`,
      headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'text/plain' },
      body: json({ content: 'pwned' }),
    });
    expect(message.status).toBe(415);
    expect(emu.messages().filter((m) => m.content === 'pwned')).toEqual([]);
    expect(emu.violations.map((v) => [v.status, v.route])).toEqual([
      [415, '/interactions/:id/:token/callback'],
      [415, '/channels/:channel/messages'],
    ]);
    // The same callback as JSON is what Discord takes.
    expect((await send({ method: 'POST', path: callback, headers: { 'content-type': 'application/json' }, body: reply })).status).toBe(204);
    expect(handle.snapshot().original?.content).toBe('pwned');
  });

  it('takes multipart only where Discord does (message bodies with files)', async () => {
    const form = new FormData();
    form.set('payload_json', json([]));
    const body = new Response(form);
    const multipart = { 'content-type': body.headers.get('content-type')!, authorization: `Bot ${TOKEN}` };
    const answer = await send({ method: 'PUT', path: `/api/v10/applications/${APP_ID}/commands`, headers: multipart, body: Buffer.from(await body.arrayBuffer()) });
    expect(answer.status).toBe(415);
    expect(emu.commands(GUILD_ID).length).toBeGreaterThan(0);
  });

  it('refuses a write that carries a web page’s Origin (multipart is a simple request too)', async () => {
    const handle = pending();
    const form = new FormData();
    form.set('payload_json', json({ type: 4, data: { content: 'pwned' } }));
    const body = new Response(form);
    const answer = await send({
      method: 'POST',
      path: `/api/v10/interactions/${handle.id}/${handle.token}/callback`,
      headers: { 'content-type': body.headers.get('content-type')!, origin: 'http://localhost:5173' },
      body: Buffer.from(await body.arrayBuffer()),
    });
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(handle.snapshot().state).toBe('pending');
  });

  it('a file upload is its own bytes and type, and refused from a web page too', async () => {
    // It only stores a file (a command names it in a JSON request), so any type is taken…
    const stored = await send({ method: 'POST', path: '/_emulator/attachments?filename=notes.txt', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(stored.status).toBe(201);
    expect(JSON.parse(stored.text)).toMatchObject({ filename: 'notes.txt', content_type: 'text/plain; charset=utf-8', size: 5 });
    // …but not from another page, nor under another name.
    const page = await send({ method: 'POST', path: '/_emulator/attachments?filename=x.txt', headers: { 'content-type': 'text/plain', origin: 'http://localhost:5173' }, body: 'x' });
    expect(page.status).toBe(403);
    const rebound = await send({ method: 'POST', path: '/_emulator/attachments?filename=x.txt', headers: { 'content-type': 'text/plain', host: `evil.example:${port}` }, body: 'x' });
    expect(rebound.status).toBe(421);
  });

  it('still serves discord.js: JSON and multipart on every route that takes files', async () => {
    const final = await emu.sendInteraction({ type: 'command', commandName: 'export' }).waitForFinal();
    expect(final.original).toMatchObject({ content: 'edited', attachments: [{ filename: 'edit.csv' }] });
    await emu.waitForCall((c) => c.method === 'PATCH' && c.route === '/channels/:channel/messages/:message');
    const uploads = emu.calls.filter((c) => c.files.length > 0).map((c) => [c.method, c.route, c.files[0]?.name]);
    expect(uploads).toEqual([
      ['POST', '/interactions/:id/:token/callback', 'reply.csv'],
      ['PATCH', '/webhooks/:app/:token/messages/@original', 'edit.csv'],
      ['POST', '/webhooks/:app/:token', 'follow-up.csv'],
      ['POST', '/channels/:channel/messages', 'channel.csv'],
      ['PATCH', '/channels/:channel/messages/:message', 'channel-edit.csv'],
    ]);
    expect(emu.violations).toEqual([]);
  });
});
