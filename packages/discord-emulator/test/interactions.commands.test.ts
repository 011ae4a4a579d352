/** Slash commands through a real discord.js client: options, replies, defers, follow-ups, permissions. */
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { GUILD_ID, OTHER_CHANNEL_ID, USER_ID } from './helpers.js';
import { botTest } from './fixtures.js';

describe('chat input commands', () => {
  botTest('reaches interactionCreate with options, locale and member permissions', async ({ emu, bot }) => {
    const seen: Record<string, unknown>[] = [];
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      seen.push({
        command: i.commandName,
        sub: i.options.getSubcommand(),
        handle: i.options.getString('handle'),
        channel: i.options.getChannel('channel')?.id,
        interval: i.options.getInteger('interval'),
        locale: i.locale,
        guildLocale: i.guildLocale,
        userId: i.user.id,
        manageGuild: i.memberPermissions?.has('ManageGuild'),
        guildId: i.guildId,
      });
      await i.reply({ content: 'ok', flags: MessageFlags.Ephemeral });
    });
    const h = emu.sendInteraction({
      type: 'command',
      commandName: 'feed',
      subcommand: 'add',
      options: { handle: 'nasa', channel: OTHER_CHANNEL_ID, interval: 10 },
      userId: USER_ID,
      locale: 'es-ES',
    });
    await h.waitForFinal();
    expect(seen).toEqual([
      {
        command: 'feed',
        sub: 'add',
        handle: 'nasa',
        channel: OTHER_CHANNEL_ID,
        interval: 10,
        locale: 'es-ES',
        guildLocale: 'es-ES',
        userId: USER_ID,
        manageGuild: false,
        guildId: GUILD_ID,
      },
    ]);
  });

  botTest('reply with embeds and the ephemeral flag is recorded and stored as ephemeral', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ embeds: [{ title: 'Feeds', description: 'none yet', fields: [{ name: 'a', value: 'b' }] }], flags: MessageFlags.Ephemeral });
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    expect(s.state).toBe('acknowledged');
    expect(s.ack?.type).toBe(4);
    expect(s.original?.embeds[0]?.title).toBe('Feeds');
    expect((s.original?.flags ?? 0) & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    const call = emu.calls.find((c) => c.route === '/interactions/:id/:token/callback');
    expect(call?.status).toBe(204);
    expect(call?.query).toEqual({ with_response: 'false' });
    expect(call?.body).toMatchObject({ type: 4, data: { flags: 64, embeds: [{ title: 'Feeds' }] } });
    expect(emu.violations).toEqual([]);
  });

  botTest('deferReply then editReply replaces the loading message and keeps it ephemeral', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply({ flags: MessageFlags.Ephemeral });
      await new Promise((r) => setTimeout(r, 50));
      await i.editReply({ content: 'done' });
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const acked = await h.waitForAck();
    expect(acked.ack?.type).toBe(5);
    const s = await h.waitForFinal();
    expect(s.original?.content).toBe('done');
    expect(s.original?.flags).toBe(MessageFlags.Ephemeral);
    const edit = emu.calls.find((c) => c.method === 'PATCH');
    expect(edit?.route).toBe('/webhooks/:app/:token/messages/@original');
    expect(edit?.path.endsWith('/messages/@original')).toBe(true);
    expect(emu.violations).toEqual([]);
  });

  botTest('followUp returns a message and is listed after the original; deleteReply removes the original', async ({ emu, bot }) => {
    const followUpIds: string[] = [];
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ content: 'first' });
      const m = await i.followUp({ content: 'second', flags: MessageFlags.Ephemeral });
      followUpIds.push(m.id);
      await i.deleteReply();
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitFor((x) => x.originalDeleted && x.followUps.length === 1);
    expect(s.original).toBeNull();
    expect(s.followUps[0]?.content).toBe('second');
    expect(s.followUps[0]?.id).toBe(followUpIds[0]);
    expect(s.followUps[0]?.flags).toBe(MessageFlags.Ephemeral);
    expect(emu.violations).toEqual([]);
  });

  botTest('after a defer, the first followUp becomes the deferred reply', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      await i.followUp({ content: 'answer' });
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    expect(s.original?.content).toBe('answer');
    expect(s.followUps).toEqual([]);
  });

  botTest('reply withResponse gets an interaction callback response with the message', async ({ emu, bot }) => {
    let messageId: string | undefined;
    bot.handle(async (i) => {
      if (!i.isChatInputCommand()) return;
      const response = await i.reply({ content: 'hello', withResponse: true });
      messageId = response.resource?.message?.id;
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    expect(messageId).toBeDefined();
    expect(messageId).toBe(s.original?.id);
    expect(s.ack?.withResponse).toBe(true);
  });

  botTest('a member without default_member_permissions cannot run the command unless overridden', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (i.isChatInputCommand()) await i.reply({ content: 'admin ok' });
    });
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'admin', userId: USER_ID })).toThrow(/default_member_permissions/);
    const withPerm = emu.sendInteraction({ type: 'command', commandName: 'admin', userId: USER_ID, permissions: '32' });
    expect((await withPerm.waitForFinal()).original?.content).toBe('admin ok');
    const override = emu.sendInteraction({ type: 'command', commandName: 'admin', userId: USER_ID, ignoreDefaultMemberPermissions: true });
    expect((await override.waitForFinal()).original?.content).toBe('admin ok');
  });

  botTest('refuses what the Discord client would not send', ({ emu }) => {
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'nope' })).toThrow(/not registered/);
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'add', options: {} })).toThrow(/required option "handle"/);
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'add', options: { handle: 'x', interval: 7 } })).toThrow(/choices/);
  });
});
