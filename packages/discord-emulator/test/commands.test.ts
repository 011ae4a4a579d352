import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PermissionFlagsBits, SlashCommandBuilder, type Client } from 'discord.js';
import type { DiscordEmulator } from '../src/index.js';
import { APP_ID, GUILD_ID, TOKEN, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator;
let client: Client;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = await loginClient(emu);
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

beforeEach(() => emu.clearRecords());

const feed = new SlashCommandBuilder()
  .setName('feed')
  .setDescription('Manage feeds')
  .setDescriptionLocalizations({ 'es-ES': 'Gestionar feeds' })
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
  .addSubcommand((s) => s.setName('list').setDescription('List feeds'))
  .addSubcommand((s) =>
    s
      .setName('add')
      .setDescription('Add')
      .addStringOption((o) => o.setName('handle').setDescription('Handle').setRequired(true).setAutocomplete(true)),
  );

describe('command registration', () => {
  it('client.application.commands.set() bulk-overwrites global commands', async () => {
    const result = await client.application!.commands.set([feed.toJSON(), { name: 'ping', description: 'Ping' }]);
    expect([...result.values()].map((c) => c.name).sort()).toEqual(['feed', 'ping']);
    expect(emu.commands().map((c) => c.name).sort()).toEqual(['feed', 'ping']);
    const stored = emu.commands().find((c) => c.name === 'feed');
    expect(stored?.default_member_permissions).toBe('32');
    expect(stored?.description_localizations).toEqual({ 'es-ES': 'Gestionar feeds' });
    const call = emu.calls.find((c) => c.method === 'PUT');
    expect(call).toMatchObject({ route: '/applications/:app/commands', status: 200 });
    expect(emu.violations).toEqual([]);
  });

  it('guild commands via client.application.commands.set(cmds, guildId) keep their ids on re-deploy', async () => {
    const first = await client.application!.commands.set([feed.toJSON()], GUILD_ID);
    const second = await client.application!.commands.set([feed.toJSON(), { name: 'ping', description: 'Ping' }], GUILD_ID);
    const firstId = [...first.values()][0]!.id;
    expect(second.find((c) => c.name === 'feed')?.id).toBe(firstId);
    expect(emu.commands(GUILD_ID).map((c) => c.name)).toEqual(['feed', 'ping']);
    expect(emu.commands(GUILD_ID)[0]?.guild_id).toBe(GUILD_ID);
  });

  it('PUT /applications/{app}/guilds/{guild}/commands over plain REST', async () => {
    const res = await fetch(`${emu.restUrl}/applications/${APP_ID}/guilds/${GUILD_ID}/commands`, {
      method: 'PUT',
      headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ name: 'status', description: 'Status', type: 1 }]),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { name: string; application_id: string }[];
    expect(body).toMatchObject([{ name: 'status', application_id: APP_ID }]);
    expect(emu.commands(GUILD_ID).map((c) => c.name)).toEqual(['status']);
    const list = await fetch(`${emu.restUrl}/applications/${APP_ID}/guilds/${GUILD_ID}/commands`, { headers: { authorization: `Bot ${TOKEN}` } });
    expect(((await list.json()) as unknown[]).length).toBe(1);
  });

  it('refuses a wrong token (401), an unknown guild (403) and another application (403)', async () => {
    const put = (path: string, auth: string) =>
      fetch(`${emu.restUrl}${path}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json' }, body: '[]' });
    const wrong = await put(`/applications/${APP_ID}/commands`, 'Bot not-the-token');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    expect((await put(`/applications/${APP_ID}/commands`, '')).status).toBe(401);
    expect((await put(`/applications/${APP_ID}/guilds/999999999999999999/commands`, `Bot ${TOKEN}`)).status).toBe(403);
    expect((await put(`/applications/999999999999999999/commands`, `Bot ${TOKEN}`)).status).toBe(403);
    expect(emu.violations.map((v) => v.kind)).toEqual(['unauthorized', 'unauthorized', 'forbidden', 'forbidden']);
  });

  it('a command that violates the limits is refused through discord.js too', async () => {
    await expect(client.application!.commands.set([{ name: 'x', description: 'y'.repeat(101) }])).rejects.toMatchObject({ status: 400, code: 50035 });
    expect(emu.violations).toMatchObject([{ kind: 'invalid_form_body' }]);
  });
});
