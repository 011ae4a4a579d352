/**
 * Messages posted by a member or a webhook (user-messages.ts): stored as Discord shows them, a
 * message command run on one carries it to a real discord.js client, and what Discord would
 * refuse is refused (422 over the control API).
 */
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { InteractionInputError } from '../src/index.js';
import { APP_ID, CHANNEL_ID, GUILD_ID, SIMPLE_COMMANDS, USER_ID, control } from './helpers.js';
import { botTest } from './fixtures.js';

const WEBHOOK = { id: '555555555555555555', name: 'Forwarder' };

describe('messages posted by members and webhooks', () => {
  botTest('a webhook post is stored as the webhook, and a message command run on it carries it to the bot', async ({ emu, bot }) => {
    emu.setCommands([...SIMPLE_COMMANDS, { type: 3, name: 'Feed of this post' }], GUILD_ID);
    const seen: { author: string; bot: boolean; webhookId: string | null; url: string | null }[] = [];
    bot.handle(async (i) => {
      if (!i.isMessageContextMenuCommand()) return;
      const m = i.targetMessage;
      seen.push({ author: m.author.username, bot: m.author.bot, webhookId: m.webhookId, url: m.embeds[0]?.url ?? null });
      await i.reply({ content: 'ok', flags: MessageFlags.Ephemeral });
    });
    const posted = emu.postMessage({ channelId: CHANNEL_ID, author: { webhook: WEBHOOK }, embeds: [{ title: 'New post', url: 'https://example.com/p/1' }] });
    expect(posted).toMatchObject({ channel_id: CHANNEL_ID, guild_id: GUILD_ID, webhook_id: WEBHOOK.id, author: { id: WEBHOOK.id, username: WEBHOOK.name, bot: true } });
    expect(emu.message(posted.id)).toEqual(posted);
    await emu.runMessageCommand({ commandName: 'Feed of this post', messageId: posted.id, userId: USER_ID }).waitForFinal();
    expect(seen).toEqual([{ author: WEBHOOK.name, bot: true, webhookId: WEBHOOK.id, url: 'https://example.com/p/1' }]);

    const byMember = emu.postMessage({ channelId: CHANNEL_ID, author: { id: USER_ID, username: 'alice' }, content: 'look https://example.com/p/2' });
    expect(byMember).toMatchObject({ author: { id: USER_ID, username: 'alice' }, content: 'look https://example.com/p/2' });
    expect(byMember).not.toHaveProperty('webhook_id');
    // A member's message is not the bot's: its components cannot be pressed as the bot's.
    expect(() => emu.pressButton({ messageId: byMember.id, customId: 'x' })).toThrow(/not the bot's/);
    expect(emu.violations).toEqual([]);
  });

  botTest('what Discord would refuse is refused', async ({ emu }) => {
    const refused = (input: unknown) => () => emu.postMessage(input as Parameters<typeof emu.postMessage>[0]);
    expect(refused({ channelId: CHANNEL_ID, author: { id: USER_ID, username: 'alice' } })).toThrow(/empty message/);
    expect(refused({ channelId: CHANNEL_ID, author: { id: USER_ID, username: 'alice' }, content: 'x'.repeat(2001) })).toThrow(InteractionInputError);
    expect(refused({ channelId: '999999999999999999', author: { id: USER_ID, username: 'alice' }, content: 'x' })).toThrow(/unknown channel/);
    expect(refused({ channelId: CHANNEL_ID, author: { id: '666666666666666666', username: 'stranger' }, content: 'x' })).toThrow(/not a member/);
    expect(refused({ channelId: CHANNEL_ID, author: { id: APP_ID, username: 'bot' }, content: 'x' })).toThrow(/REST API/);
    expect(refused({ channelId: CHANNEL_ID, author: { id: USER_ID, username: 'alice' }, content: 'x', components: [] })).toThrow(/invalid message/);

    const viaControl = await control(emu, 'POST', '/messages', { channelId: CHANNEL_ID, author: { webhook: WEBHOOK }, content: 'hello' });
    expect(viaControl.status).toBe(201);
    expect(viaControl.json).toMatchObject({ content: 'hello', webhook_id: WEBHOOK.id });
    expect((await control(emu, 'POST', '/messages', { channelId: CHANNEL_ID, author: { webhook: WEBHOOK } })).status).toBe(422);
  });
});
