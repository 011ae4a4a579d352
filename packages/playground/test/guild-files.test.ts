/**
 * The playground server's routes over the demo server itself, against a real emulator (no bot, no
 * sandbox, no browser): channels changed by the owner only, the bot's channel posts, uploads for
 * attachment options (Discord's size limit) and attachment downloads that can never run as a page
 * of the playground's origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { RunningPlayground } from '../src/playground.js';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, APPLICATION_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, demoGuild } from '../src/stack.js';
import { startBarePlayground } from './playground-fixture.js';

let emulator: DiscordEmulator;
let playground: RunningPlayground;

beforeAll(async () => {
  emulator = await startEmulator({ applicationId: APPLICATION_ID, botToken: 'playground-test-token', guilds: [demoGuild()] });
  const actor = (userId: string, permissions: string) => ({ userId, username: userId, displayName: userId, permissions, avatar: '' });
  playground = await startBarePlayground(emulator, DEMO_GUILD_ID, { admin: actor(ADMIN_USER_ID, ADMIN_PERMISSIONS), member: actor(MEMBER_USER_ID, MEMBER_PERMISSIONS) });
});

afterAll(async () => {
  await playground?.close();
  await emulator?.close();
});

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${playground.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' || body instanceof Blob ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

const ADMIN = { actor: 'admin', locale: 'en-US' } as const;

describe('channels', () => {
  it('the owner creates a channel in the category, named as Discord names it; /api/state lists it', async () => {
    const created = await call('POST', '/api/channels', { name: 'Audit Log', type: 0, ...ADMIN });
    expect(created.status).toBe(201);
    const channel = created.json();
    expect(channel).toMatchObject({ name: 'audit-log', type: 0, parent_id: '1100000000000000100' });
    const state = (await call('GET', '/api/state')).json() as { channels: { id: string; name: string }[]; guild: { ownerId: string } };
    expect(state.channels.map((c) => c.name)).toContain('audit-log');
    expect(state.guild.ownerId).toBe(ADMIN_USER_ID);

    const deleted = await call('DELETE', `/api/channels/${String(channel.id)}`, ADMIN);
    expect(deleted.status).toBe(200);
    expect(emulator.guild(DEMO_GUILD_ID)!.channels.some((c) => c.id === channel.id)).toBe(false);
    await expect(call('DELETE', `/api/channels/${String(channel.id)}`, ADMIN)).resolves.toMatchObject({ status: 404 });
  });

  it('refuses a member (403), another site (403) and a bad name (400)', async () => {
    await expect(call('POST', '/api/channels', { name: 'x', actor: 'member', locale: 'en-US' })).resolves.toMatchObject({ status: 403 });
    await expect(call('DELETE', `/api/channels/${DEMO_CHANNEL_IDS[0]}`, { actor: 'member', locale: 'en-US' })).resolves.toMatchObject({ status: 403 });
    await expect(call('POST', '/api/channels', { name: 'x', ...ADMIN }, { origin: 'http://evil.example' })).resolves.toMatchObject({ status: 403 });
    await expect(call('POST', '/api/channels', { name: '   ', ...ADMIN })).resolves.toMatchObject({ status: 400 });
    await expect(call('POST', '/api/channels', { name: 'voice', type: 2, ...ADMIN })).resolves.toMatchObject({ status: 400 });
    expect(emulator.guild(DEMO_GUILD_ID)!.channels.some((c) => c.id === DEMO_CHANNEL_IDS[0])).toBe(true);
  });
});

describe('files', () => {
  it('an upload becomes a Discord attachment the playground serves back as a download', async () => {
    const content = JSON.stringify({ format: 'feedbot-feeds', feeds: [] });
    const uploaded = await call('POST', `/api/attachments?filename=${encodeURIComponent('my feeds.json')}`, content, { 'content-type': 'application/json' });
    expect(uploaded.status).toBe(201);
    const attachment = uploaded.json() as { id: string; filename: string; size: number; url: string };
    expect(attachment).toMatchObject({ filename: 'my feeds.json', size: Buffer.byteLength(content) });
    expect(attachment.url.startsWith(`${emulator.controlUrl}/attachments/${attachment.id}/`)).toBe(true);

    // The page links `/attachments/<rest of the emulator's URL>`.
    const rest = attachment.url.slice(`${emulator.controlUrl}/attachments/`.length);
    const file = await call('GET', `/attachments/${rest}`);
    expect(file.status).toBe(200);
    expect(file.text).toBe(content);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''my%20feeds.json`);
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    // Another name for the same id, or an id nobody uploaded, is not a file.
    await expect(call('GET', `/attachments/${attachment.id}/other.json`)).resolves.toMatchObject({ status: 404 });
    await expect(call('GET', '/attachments/1234567890123456789/my%20feeds.json')).resolves.toMatchObject({ status: 404 });
    await expect(call('GET', `/attachments/${attachment.id}/%E0%A4%A`)).resolves.toMatchObject({ status: 400 });
  });

  it('refuses a file over Discord’s 10 MiB, a name with a slash and another site', async () => {
    const big = new Blob([new Uint8Array(10 * 1024 * 1024 + 1)]);
    await expect(call('POST', '/api/attachments?filename=big.bin', big, { 'content-type': 'application/octet-stream' })).resolves.toMatchObject({ status: 413 });
    await expect(call('POST', '/api/attachments?filename=a%2Fb.json', '{}')).resolves.toMatchObject({ status: 400 });
    await expect(call('POST', '/api/attachments', '{}')).resolves.toMatchObject({ status: 400 });
    await expect(call('POST', '/api/attachments?filename=x.json', '{}', { origin: 'http://evil.example' })).resolves.toMatchObject({ status: 403 });
  });
});

describe('channel posts', () => {
  it('lists what the bot posted in a channel itself, not interaction answers', async () => {
    const res = await fetch(`${emulator.restUrl}/channels/${DEMO_CHANNEL_IDS[1]}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bot playground-test-token', 'content-type': 'application/json' },
      body: JSON.stringify({ embeds: [{ title: 'Feed #1 created' }] }),
    });
    expect(res.status).toBe(200);
    const posts = (await call('GET', '/api/posts')).json().posts as { channel_id: string; embeds: { title: string }[] }[];
    expect(posts).toEqual([expect.objectContaining({ channel_id: DEMO_CHANNEL_IDS[1], embeds: [expect.objectContaining({ title: 'Feed #1 created' })] })]);
  });

  it('lists what a webhook posted too: the forwarding service’s posts', async () => {
    const forwarded = emulator.postMessage({ channelId: DEMO_CHANNEL_IDS[0], author: { webhook: { id: '1600000000000000001', name: 'Post forwarder' } }, embeds: [{ title: '@nasa · post', url: 'https://127.0.0.1:9/p/AAAAAAAAAAA' }] });
    const posts = (await call('GET', '/api/posts')).json().posts as { id: string; webhook_id?: string }[];
    expect(posts).toContainEqual(expect.objectContaining({ id: forwarded.id, webhook_id: '1600000000000000001' }));
  });
});
