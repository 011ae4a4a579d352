import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from 'discord.js';
import type { DiscordEmulator } from '../src/index.js';
import { APP_ID, CHANNEL_ID, GUILD_ID, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.destroy();
  await emu?.close();
  client = undefined;
  emu = undefined;
});

describe('login', () => {
  it('a discord.js client becomes ready with the configured guilds', async () => {
    emu = await startTestEmulator();
    client = await loginClient(emu);
    expect(client.user?.id).toBe(APP_ID);
    expect(client.application?.id).toBe(APP_ID);
    const guild = client.guilds.cache.get(GUILD_ID);
    expect(guild?.name).toBe('Test Guild');
    expect(guild?.channels.cache.get(CHANNEL_ID)?.name).toBe('general');
    expect(guild?.roles.cache.size).toBe(2);
    expect(emu.calls.map((c) => `${c.method} ${c.route}`)).toContain('GET /gateway/bot');
    expect(emu.violations).toEqual([]);
  });
});
