/**
 * The interactions a settings panel and a right-click menu make, through a real discord.js client:
 * typed selects in messages (with `resolved`), an update (type 7) that edits the panel in place,
 * message commands (type 3) carrying the whole message, and modals whose Labels hold a channel
 * select, a string select, a checkbox group and a checkbox.
 */
import { describe, expect } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import { ChannelSelectMenuBuilder, ChannelType, ComponentType, MessageFlags } from 'discord.js';
import { InteractionInputError, type DiscordEmulator } from '../src/index.js';
import { ADMIN_ROLE_ID, APP_ID, CHANNEL_ID, GUILD_ID, OTHER_CHANNEL_ID, SIMPLE_COMMANDS, TOKEN } from './helpers.js';
import { botTest } from './fixtures.js';

const MESSAGE_COMMAND = { type: 3, name: 'Feed of this post' };

const row = (...components: unknown[]) => ({ type: 1, components });

/** The bot posts a message over REST, as its REST client does. */
async function post(emu: DiscordEmulator, body: unknown): Promise<APIMessage> {
  const res = await fetch(`${emu.restUrl}/channels/${CHANNEL_ID}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as APIMessage;
}

/** The bot posts a panel: a channel select (text channels, one preselected) and a role select. */
async function postPanel(emu: DiscordEmulator): Promise<APIMessage> {
  return post(emu, {
    content: 'panel',
    components: [
      row(new ChannelSelectMenuBuilder().setCustomId('channel').setChannelTypes(ChannelType.GuildText).setDefaultChannels(CHANNEL_ID).toJSON()),
      row({ type: 6, custom_id: 'roles', min_values: 0, max_values: 2 }),
    ],
  });
}

describe('selects in messages', () => {
  botTest('a channel select press carries the channel resolved, and update() edits the panel in place', async ({ emu, bot }) => {
    const seen: { values: string[]; resolvedName?: string; type?: number; messageId?: string }[] = [];
    bot.handle(async (i) => {
      if (!i.isChannelSelectMenu()) return;
      seen.push({ values: i.values, resolvedName: (i.channels.get(i.values[0]!) as { name?: string } | undefined)?.name, type: i.componentType, messageId: i.message.id });
      await i.update({ content: `filtered by ${i.values.join(',')}` });
    });
    const panel = await postPanel(emu);
    const h = emu.selectMenu({ messageId: panel.id, customId: 'channel', values: [OTHER_CHANNEL_ID] });
    const s = await h.waitForFinal();
    expect(s.ack?.type).toBe(7);
    expect(seen).toEqual([{ values: [OTHER_CHANNEL_ID], resolvedName: 'feeds', type: ComponentType.ChannelSelect, messageId: panel.id }]);
    const stored = emu.message(panel.id);
    expect(stored?.content).toBe(`filtered by ${OTHER_CHANNEL_ID}`);
    expect(emu.messages({ channelId: CHANNEL_ID }).filter((m) => m.content.startsWith('filtered'))).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  });

  botTest('a role select press resolves the roles; deferUpdate (6) then an edit changes the same message', async ({ emu, bot }) => {
    const roles: string[] = [];
    bot.handle(async (i) => {
      if (!i.isRoleSelectMenu()) return;
      roles.push(...i.roles.map((r) => r.name));
      await i.deferUpdate();
      await i.editReply({ content: 'roles saved' });
    });
    const panel = await postPanel(emu);
    const s = await emu.selectMenu({ messageId: panel.id, customId: 'roles', values: [ADMIN_ROLE_ID] }).waitForFinal();
    expect(s.ack?.type).toBe(6);
    expect(roles).toEqual(['Admin']);
    expect(emu.message(panel.id)?.content).toBe('roles saved');
  });

  botTest('what the client would not let a user pick is refused before anything is sent', async ({ emu }) => {
    const panel = await postPanel(emu);
    const before = emu.interactions().length;
    expect(() => emu.selectMenu({ messageId: panel.id, customId: 'roles', values: [ADMIN_ROLE_ID, ADMIN_ROLE_ID] })).toThrow(InteractionInputError);
    expect(() => emu.selectMenu({ messageId: panel.id, customId: 'channel', values: [] })).toThrow(/takes 1–1 values/);
    expect(() => emu.selectMenu({ messageId: panel.id, customId: 'roles', values: ['999999999999999999'] })).toThrow(InteractionInputError);
    expect(emu.interactions()).toHaveLength(before);
  });
});

describe('message commands', () => {
  botTest('right-click → Apps → the command: data.type 3, target_id and the whole stored message', async ({ emu, bot }) => {
    emu.setCommands([...SIMPLE_COMMANDS, MESSAGE_COMMAND], GUILD_ID);
    const targets: { name: string; type: number; target: string; content: string; embedTitle: string | null }[] = [];
    bot.handle(async (i) => {
      if (!i.isMessageContextMenuCommand()) return;
      const m = i.targetMessage;
      targets.push({ name: i.commandName, type: i.commandType, target: i.targetId, content: m.content, embedTitle: m.embeds[0]?.title ?? null });
      await i.reply({ content: `card of ${m.id}`, flags: MessageFlags.Ephemeral });
    });
    const target = await post(emu, { content: 'https://example.com/post/1', embeds: [{ title: 'A post' }] });
    const h = emu.runMessageCommand({ commandName: 'Feed of this post', messageId: target.id });
    expect(h.payload).toMatchObject({ type: 2, data: { type: 3, name: 'Feed of this post', target_id: target.id, resolved: { messages: { [target.id]: emu.message(target.id) } } } });
    const s = await h.waitForFinal();
    expect(targets).toEqual([{ name: 'Feed of this post', type: 3, target: target.id, content: 'https://example.com/post/1', embedTitle: 'A post' }]);
    expect(s.original?.content).toBe(`card of ${target.id}`);
    expect(() => emu.runMessageCommand({ commandName: 'ping', messageId: target.id })).toThrow(/message command "ping" is not registered/);
    expect(emu.violations).toEqual([]);
  });

  botTest('the command deploy takes message commands: name only, no description, at most 15', async ({ emu }) => {
    const deploy = async (commands: unknown[]) => {
      const res = await fetch(`${emu.restUrl}/applications/${APP_ID}/guilds/${GUILD_ID}/commands`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
        body: JSON.stringify(commands),
      });
      return { status: res.status, body: (await res.json()) as { type?: number; name?: string; description?: string; code?: number }[] & { code?: number } };
    };
    const ok = await deploy([...SIMPLE_COMMANDS, MESSAGE_COMMAND]);
    expect(ok.status).toBe(200);
    expect(ok.body.find((c) => c.type === 3)).toMatchObject({ type: 3, name: 'Feed of this post', description: '' });
    expect(emu.commands(GUILD_ID).filter((c) => c.type === 3)).toHaveLength(1);
    const many = Array.from({ length: 16 }, (_, i) => ({ type: 3, name: `Command ${i}` }));
    expect((await deploy(many)).body).toMatchObject({ code: 50035 });
    expect((await deploy([{ ...MESSAGE_COMMAND, description: 'not allowed' }])).body).toMatchObject({ code: 50035 });
    expect((await deploy([{ ...MESSAGE_COMMAND, options: [{ type: 3, name: 'x', description: 'd' }] }])).body).toMatchObject({ code: 50035 });
  });
});

describe('modals with Labels', () => {
  const modal = {
    custom_id: 'create',
    title: 'New feed',
    components: [
      { type: 18, label: 'Account', component: { type: 4, custom_id: 'account', style: 1 } },
      { type: 18, label: 'Channel', component: { type: 8, custom_id: 'channel', channel_types: [0, 5] } },
      { type: 18, label: 'State', component: { type: 3, custom_id: 'state', required: false, options: [{ label: 'Active', value: 'active' }, { label: 'Paused', value: 'paused' }] } },
      {
        type: 18,
        label: 'Kinds',
        component: { type: 22, custom_id: 'kinds', min_values: 1, options: [{ label: 'Posts', value: 'posts', default: true }, { label: 'Replies', value: 'replies' }, { label: 'Reposts', value: 'reposts' }] },
      },
      { type: 18, label: 'Notify', component: { type: 23, custom_id: 'notify' } },
    ],
  };

  botTest('a submit echoes each Label with its custom_id and value(s), resolved channels included', async ({ emu, bot }) => {
    const got: unknown[] = [];
    bot.handle(async (i) => {
      if (i.isChatInputCommand()) {
        await i.showModal(modal as never);
        return;
      }
      if (!i.isModalSubmit()) return;
      const f = i.fields;
      got.push({
        account: f.getTextInputValue('account'),
        channels: [...f.getSelectedChannels('channel', true)!.values()].map((c) => c!.name),
        state: f.getStringSelectValues('state'),
        kinds: f.getCheckboxGroup('kinds'),
        notify: f.getCheckbox('notify'),
      });
      await i.reply({ content: 'created', flags: MessageFlags.Ephemeral });
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    expect((await h.waitForFinal()).ack?.type).toBe(9);
    const submit = h.submitModal({ account: 'nasa', channel: OTHER_CHANNEL_ID, kinds: ['posts', 'reposts'], notify: true });
    expect(submit.payload).toMatchObject({
      type: 5,
      data: {
        custom_id: 'create',
        components: [
          { type: 18, component: { type: 4, custom_id: 'account', value: 'nasa' } },
          { type: 18, component: { type: 8, custom_id: 'channel', values: [OTHER_CHANNEL_ID] } },
          { type: 18, component: { type: 3, custom_id: 'state', values: [] } },
          { type: 18, component: { type: 22, custom_id: 'kinds', values: ['posts', 'reposts'] } },
          { type: 18, component: { type: 23, custom_id: 'notify', value: true } },
        ],
        resolved: { channels: { [OTHER_CHANNEL_ID]: { id: OTHER_CHANNEL_ID, name: 'feeds', type: 0 } } },
      },
    });
    expect((await submit.waitForFinal()).original?.content).toBe('created');
    expect(got).toEqual([{ account: 'nasa', channels: ['feeds'], state: [], kinds: ['posts', 'reposts'], notify: true }]);
  });

  botTest('the client refuses picks a modal does not allow', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (i.isChatInputCommand()) await i.showModal({ ...modal, components: modal.components.map((c) => (c.component.type === 8 ? { ...c, component: { ...c.component, channel_types: [5], required: false } } : c)) } as never);
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    const base = { account: 'nasa', kinds: ['posts'] };
    expect(() => h.submitModal({ ...base, channel: CHANNEL_ID })).toThrow(/offers channels of types 5/);
    expect(() => h.submitModal({ ...base, kinds: [] })).toThrow(/"kinds" takes 1–3 values/);
    expect(() => h.submitModal({ ...base, kinds: ['likes'] })).toThrow(/no option "likes"/);
    expect(() => h.submitModal({ ...base, notify: 'yes' })).toThrow(/takes true or false/);
  });
});
