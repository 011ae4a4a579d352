/**
 * Files a user attaches to a command's attachment option: uploaded first (control API or
 * library), then named by the option; the interaction carries Discord's attachment object in
 * `data.resolved.attachments`, and its `url` serves the bytes, as the CDN would.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Events, type Attachment, type Client } from 'discord.js';
import { ATTACHMENT_SIZE_LIMIT, InteractionInputError, type DiscordEmulator } from '../src/index.js';
import { GUILD_ID, control as controlRequest, loginClient, startTestEmulator } from './helpers.js';

const COMMANDS = [
  {
    name: 'import',
    description: 'Import feeds',
    options: [
      { type: 11, name: 'archivo', description: 'The export file', required: true },
      { type: 3, name: 'nota', description: 'A note', required: false },
    ],
  },
];

const EXPORT = JSON.stringify({ version: 1, feeds: [{ id: 'f1', cuenta: 'nasa' }] });

let emu: DiscordEmulator;
let client: Client;
/** What the bot saw of the option and downloaded from its url. */
let seen: { attachment: Attachment | null; body: string; contentType: string | null } | undefined;

beforeAll(async () => {
  emu = await startTestEmulator();
  emu.setCommands(COMMANDS, GUILD_ID);
  client = await loginClient(emu);
  client.on(Events.InteractionCreate, async (i) => {
    if (!i.isChatInputCommand()) return;
    await i.deferReply();
    const attachment = i.options.getAttachment('archivo');
    const res = await fetch(attachment!.url);
    seen = { attachment, body: await res.text(), contentType: res.headers.get('content-type') };
    await i.editReply(`read ${attachment!.name}`);
  });
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

beforeEach(() => {
  seen = undefined;
});

function upload(query: string, body: string | Buffer, contentType?: string) {
  const bytes = typeof body === 'string' ? body : new Uint8Array(body);
  return fetch(`${emu.controlUrl}/attachments${query}`, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body: bytes });
}

describe('uploading a file (POST /_emulator/attachments)', () => {
  it('answers Discord’s attachment object; its url serves the bytes', async () => {
    const res = await upload('?filename=feeds.json', EXPORT, 'application/json');
    expect(res.status).toBe(201);
    const attachment = (await res.json()) as Record<string, unknown>;
    expect(attachment).toEqual({
      id: expect.stringMatching(/^\d{17,20}$/),
      filename: 'feeds.json',
      size: Buffer.byteLength(EXPORT),
      content_type: 'application/json; charset=utf-8',
      url: expect.stringMatching(new RegExp(`^${emu.controlUrl}/attachments/\\d+/feeds\\.json\\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]{64}$`)),
      proxy_url: attachment.url,
      ephemeral: true,
    });
    const served = await fetch(attachment.url as string);
    expect(served.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await served.text()).toBe(EXPORT);
    expect(emu.attachment(attachment.id as string)?.data.toString()).toBe(EXPORT);
  });

  it('takes any file type, within Discord’s 10 MiB, and needs a file name', async () => {
    const csv = await upload('?filename=feeds.csv', 'id,cuenta\nf1,nasa\n', 'text/csv');
    expect(await csv.json()).toMatchObject({ filename: 'feeds.csv', content_type: 'text/csv; charset=utf-8' });
    const png = await upload('?filename=logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png');
    expect(await png.json()).toMatchObject({ size: 4, content_type: 'image/png' });
    // A Buffer: fetch would type a string body text/plain.
    const untyped = await upload('?filename=blob.bin', Buffer.from('x'));
    expect(await untyped.json()).toMatchObject({ content_type: 'application/octet-stream' });
    expect((await upload('', 'x', 'text/plain')).status).toBe(400);
    expect((await upload('?filename=../etc/passwd', 'x', 'text/plain')).status).toBe(400);
    expect((await upload('?filename=big.bin', Buffer.alloc(ATTACHMENT_SIZE_LIMIT + 1), 'application/octet-stream')).status).toBe(413);
  });
});

describe('a command with an attachment option', () => {
  it('through the control API: resolved.attachments carries the upload, and the bot downloads it', async () => {
    const attachment = (await (await upload('?filename=feeds.json', EXPORT, 'application/json')).json()) as { id: string; url: string };
    const sent = await controlRequest(emu, 'POST', '/interactions', { type: 'command', commandName: 'import', options: { archivo: attachment.id, nota: 'hola' } });
    expect(sent.status).toBe(201);
    const final = await controlRequest(emu, 'POST', `/interactions/${sent.json.id}/wait?for=final&timeoutMs=3000`);
    expect(final.json.original.content).toBe('read feeds.json');

    const payload = emu.interaction(sent.json.id)!.payload as { data: { options: unknown[]; resolved: { attachments: Record<string, unknown> } } };
    expect(payload.data.options).toEqual([
      { name: 'archivo', type: 11, value: attachment.id },
      { name: 'nota', type: 3, value: 'hola' },
    ]);
    expect(payload.data.resolved.attachments).toEqual({ [attachment.id]: attachment });
    expect(seen?.attachment).toMatchObject({ id: attachment.id, name: 'feeds.json', size: Buffer.byteLength(EXPORT), contentType: 'application/json; charset=utf-8', url: attachment.url, ephemeral: true });
    expect(seen?.body).toBe(EXPORT);
    expect(emu.violations).toEqual([]);
  });

  it('through the library: the file itself as the option value, uploaded on the way', async () => {
    const handle = emu.sendInteraction({ type: 'command', commandName: 'import', options: { archivo: { filename: 'feeds.csv', data: 'id\nf1\n', contentType: 'text/csv' } } });
    await handle.waitForFinal();
    expect(seen).toMatchObject({ attachment: { name: 'feeds.csv', contentType: 'text/csv; charset=utf-8' }, body: 'id\nf1\n', contentType: 'text/csv; charset=utf-8' });
    const uploaded = emu.uploadAttachment({ filename: 'again.json', data: Buffer.from(EXPORT), contentType: 'application/json' });
    await emu.sendInteraction({ type: 'command', commandName: 'import', options: { archivo: uploaded.id } }).waitForFinal();
    expect(seen?.body).toBe(EXPORT);
  });

  it('refuses what the Discord client would not send', () => {
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'import', options: { archivo: '123456789012345678' } })).toThrow(/no uploaded attachment/);
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'import', options: { archivo: 'x', nota: { filename: 'a.txt', data: 'a' } } })).toThrow(InteractionInputError);
    expect(() => emu.uploadAttachment({ filename: 'huge.bin', data: Buffer.alloc(ATTACHMENT_SIZE_LIMIT + 1) })).toThrow(InteractionInputError);
  });
});
