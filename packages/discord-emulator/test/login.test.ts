import { describe, expect } from 'vitest';
import { emulatorTest } from './fixtures.js';
import { APP_ID, CHANNEL_ID, GUILD_ID } from './helpers.js';

describe('login', () => {
  emulatorTest('a discord.js client becomes ready with the configured guilds', async ({ emu, client }) => {
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
