/**
 * The playground's routes for selects and message commands against an emulator alone (no bot, no
 * browser): what the Discord client would not send is refused with 422 before anything reaches
 * the bot, a body outside the schema with 400, and with no bot connected a valid pick gets 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { RunningPlayground } from '../src/playground.js';
import { ADMIN_PERMISSIONS, ADMIN_ROLE_ID, ADMIN_USER_ID, APPLICATION_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, demoGuild } from '../src/stack.js';
import { startBarePlayground } from './playground-fixture.js';

const TOKEN = 'component-routes-token';
let emulator: DiscordEmulator;
let playground: RunningPlayground;
let messageId: string;

beforeAll(async () => {
  emulator = await startEmulator({ applicationId: APPLICATION_ID, botToken: TOKEN, guilds: [demoGuild()] });
  emulator.setCommands([{ type: 3, name: 'Inspect' }], DEMO_GUILD_ID);
  const actor = (userId: string, permissions: string) => ({ userId, username: userId, displayName: userId, permissions, avatar: '' });
  playground = await startBarePlayground(emulator, DEMO_GUILD_ID, { admin: actor(ADMIN_USER_ID, ADMIN_PERMISSIONS), member: actor(MEMBER_USER_ID, MEMBER_PERMISSIONS) });
  const res = await fetch(`${emulator.restUrl}/channels/${DEMO_CHANNEL_IDS[0]}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
    body: JSON.stringify({ content: 'panel', components: [{ type: 1, components: [{ type: 6, custom_id: 'roles', max_values: 1 }] }] }),
  });
  messageId = ((await res.json()) as { id: string }).id;
});

afterAll(async () => {
  await playground?.close();
  await emulator?.close();
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${playground.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { error?: string } };
};
const ADMIN = { actor: 'admin', locale: 'en-US' } as const;

describe('POST /api/select and /api/message-command', () => {
  it('refuses picks the client would not send (422) and bodies outside the schema (400)', async () => {
    const before = emulator.interactions().length;
    await expect(post('/api/select', { messageId, customId: 'roles', values: [ADMIN_ROLE_ID, DEMO_GUILD_ID], ...ADMIN })).resolves.toMatchObject({ status: 422, body: { error: expect.stringMatching(/takes 1–1 values/) } });
    await expect(post('/api/select', { messageId, customId: 'nope', values: [ADMIN_ROLE_ID], ...ADMIN })).resolves.toMatchObject({ status: 422 });
    await expect(post('/api/select', { messageId, customId: 'roles', values: Array.from({ length: 26 }, (_, i) => String(i)), ...ADMIN })).resolves.toMatchObject({ status: 400 });
    await expect(post('/api/message-command', { messageId, commandName: 'Unknown', ...ADMIN })).resolves.toMatchObject({ status: 422, body: { error: expect.stringMatching(/not registered/) } });
    await expect(post('/api/message-command', { messageId: 'x', commandName: 'Inspect', ...ADMIN })).resolves.toMatchObject({ status: 400 });
    expect(emulator.interactions()).toHaveLength(before);
  });

  it('with no bot connected, a valid pick or command is refused as offline (409)', async () => {
    await expect(post('/api/select', { messageId, customId: 'roles', values: [ADMIN_ROLE_ID], ...ADMIN })).resolves.toMatchObject({ status: 409 });
    await expect(post('/api/message-command', { messageId, commandName: 'Inspect', ...ADMIN })).resolves.toMatchObject({ status: 409 });
  });
});
