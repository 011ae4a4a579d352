/** The acknowledgement deadline, double acknowledgements, and payloads built outside the emulator. */
import { describe, expect } from 'vitest';
import { DiscordAPIError } from 'discord.js';
import { buildChatInputInteraction, normalizeGuild } from '../src/index.js';
import { CHANNEL_ID, GUILD, GUILD_ID, OTHER_CHANNEL_ID, USER_ID } from './helpers.js';
import { botTest } from './fixtures.js';

describe('deadlines and double acknowledgement', () => {
  botTest('a reply after the acknowledgement deadline fails with 10062 Unknown interaction', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      await new Promise((r) => setTimeout(r, emu.ackDeadlineMs + 150));
      await i.reply({ content: 'too late' });
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await expect(h.waitForAck(2000)).rejects.toThrow(/expired/);
    const error = await bot.nextError();
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10062);
    expect((error as DiscordAPIError).status).toBe(404);
    expect(h.snapshot()).toMatchObject({ state: 'expired', callbacks: 1 });
    expect(emu.violations.map((v) => v.kind).sort()).toEqual(['ack_timeout', 'unknown_interaction']);
  });

  // Two sessions on one shard (a blue/green deploy) both answering: test/gateway.shared-shards.test.ts.
  botTest('acknowledging twice fails with 40060', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ content: 'one' });
      // discord.js refuses a second reply locally, so go through REST as a buggy bot might.
      await i.client.rest.post(`/interactions/${i.id}/${i.token}/callback`, { body: { type: 4, data: { content: 'two' } }, auth: false });
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const error = await bot.nextError();
    expect((error as DiscordAPIError).code).toBe(40060);
    expect((error as DiscordAPIError).status).toBe(400);
    expect(h.snapshot().original?.content).toBe('one');
    expect(h.snapshot().errors.map((e) => e.code)).toEqual([40060]);
    // Two callbacks for one interaction: what a test checking "answered exactly once" reads.
    expect(h.snapshot()).toMatchObject({ state: 'acknowledged', callbacks: 2 });
    expect(emu.violations.map((v) => v.kind)).toEqual(['already_acknowledged']);
  });

  botTest('an interaction nobody answers expires and is recorded', async ({ emu }) => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping', channelId: CHANNEL_ID });
    const s = await h.waitFor((x) => x.state === 'expired', 2000);
    expect(s.ack).toBeNull();
    expect(s.callbacks).toBe(0);
    expect(emu.violations.map((v) => v.kind)).toEqual(['ack_timeout']);
  });
});

describe('raw payloads', () => {
  botTest('a payload built with the exported builders is dispatched as is and tracked', async ({ emu, bot }) => {
    const guild = normalizeGuild(GUILD);
    const command = emu.commands(GUILD_ID).find((c) => c.name === 'ping')!;
    const payload = buildChatInputInteraction(
      {
        applicationId: emu.applicationId,
        guild,
        channel: guild.channels[1]!,
        user: { id: USER_ID, username: 'alice', discriminator: '0', global_name: null, avatar: null },
        memberRoles: [],
        permissions: '0',
        locale: 'en-US',
        appPermissions: '8',
      },
      command,
    );
    const seen: string[] = [];
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      seen.push(`${i.id} ${i.channelId}`);
      await i.reply({ content: 'raw ok' });
    });
    const h = emu.sendInteraction({ type: 'raw', payload });
    const s = await h.waitForFinal();
    expect(h.id).toBe(payload.id);
    expect(seen).toEqual([`${payload.id} ${OTHER_CHANNEL_ID}`]);
    expect(s.original?.content).toBe('raw ok');
  });
});
