/**
 * The component framework the feature commands build on, proven with a test-only command module
 * (`probe`) and message command, over the gateway and (project 'commands over http') the signed
 * HTTP endpoint: selects routed by custom_id with their values and resolved channels/roles, an
 * answer that updates the message in place (callback type 7, deferral type 6), a button and a
 * slash command that open a modal (type 9, never deferred first), a modal of Labels with a text
 * input, a channel select and a checkbox group, and a message command that gets its message.
 */
import { describe, expect } from 'vitest';
import {
  ApplicationCommandType,
  ChannelType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  MessageFlags,
  type APIModalInteractionResponseCallbackData,
} from 'discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import {
  ADMIN_ID,
  MEMBER_ID,
  MEMBER_PERMS,
  buttonPress,
  channelSelectPress,
  chatInput,
  field,
  messageCommand,
  modalSubmitted,
  roleSelectPress,
  stringSelectPress,
} from '../helpers/discord.js';
import { button, channelSelect, modal, roleSelect, stringSelect, type AppCommand, type CommandModule, type ContextMenuModule } from '../../src/interactions/command.js';
import { customId, snowflake } from '../../src/interactions/custom-id.js';
import type { InteractionRecord } from '../../src/interactions/interaction-record.js';
import { createCommands } from '../../src/commands.js';
import { localizeContextMenu } from '../../src/i18n/localize.js';

const pickId = customId('probe:pick', { userId: snowflake });
const channelId = customId('probe:channel', {});
const rolesId = customId('probe:roles', {});
const openId = customId('probe:open', {});
const formId = customId('probe:form', {});

/** A modal of Labels: a text input, a channel select (text and announcement) and a checkbox group. */
const form: APIModalInteractionResponseCallbackData = {
  custom_id: formId.encode({}),
  title: 'Probe',
  components: [
    { type: 18, label: 'Account', component: { type: 4, custom_id: 'account', style: 1 } },
    { type: 18, label: 'Channel', component: { type: 8, custom_id: 'channel', channel_types: [0, 5], min_values: 1, max_values: 1 } },
    {
      type: 18,
      label: 'Kinds',
      component: {
        type: 22,
        custom_id: 'kinds',
        options: [
          { label: 'Posts', value: 'post' },
          { label: 'Reels', value: 'reel' },
        ],
      },
    },
  ],
} as APIModalInteractionResponseCallbackData;

/** Answers say what reached the handler; a slow select shows the deferral the update mode sends. */
const probe: CommandModule = {
  data: { name: 'probe', toJSON: () => ({ name: 'probe', description: 'probe' }) },
  command: { ephemeral: true, answer: 'modal', run: (_i, ctx) => ctx.respond.showModal(form) },
  buttons: [button({ id: openId, answer: 'modal', ephemeral: true, run: (_i, ctx) => ctx.respond.showModal(form) })],
  selects: [
    stringSelect({
      id: pickId,
      answer: 'update',
      ephemeral: false,
      invokerOnly: true,
      run: async (i, ctx) => {
        if (i.values.includes('slow')) await ctx.respond.defer();
        await ctx.respond.send({ content: `picked ${i.values.join(',')}`, components: [] });
      },
    }),
    channelSelect({
      id: channelId,
      answer: 'reply',
      ephemeral: true,
      run: (i, ctx) => ctx.respond.send({ content: i.channels.map((c) => `${c.id}=${'name' in c ? c.name : '?'}/${c.type}`).join(',') }),
    }),
    roleSelect({
      id: rolesId,
      answer: 'update',
      ephemeral: true,
      requires: { permission: 'ManageGuild', action: 'manageSettings' },
      run: (i, ctx) => ctx.respond.send({ content: `roles ${i.roles.map((r) => r.name).join(',')}` }),
    }),
  ],
  modals: [
    modal({
      id: formId,
      answer: 'reply',
      ephemeral: true,
      run: (i, ctx) => {
        const account = i.fields.getTextInputValue('account');
        const channels = i.fields.getSelectedChannels('channel', true, [ChannelType.GuildText, ChannelType.GuildAnnouncement]);
        const kinds = i.fields.getCheckboxGroup('kinds');
        return ctx.respond.send({ content: `account=${account} channel=${[...channels.keys()].join(',')} kinds=${kinds.join('+')}` });
      },
    }),
  ],
};

/** A message command named by a catalogue text ('Feeds'), as a feature's would be. */
const probeMessage: ContextMenuModule = {
  data: localizeContextMenu(new ContextMenuCommandBuilder().setType(ApplicationCommandType.Message).setContexts(InteractionContextType.Guild), 'list.title'),
  contextMenu: {
    type: 'message',
    ephemeral: true,
    guildOnly: true,
    run: (i, ctx) => ctx.respond.send({ content: `target ${i.targetId} in ${i.targetMessage.channelId}: ${i.targetMessage.content}` }),
  },
};

const withProbes = (): AppCommand[] => [...createCommands(), probe, probeMessage];

function last(h: BotHarness): { type: number; data?: { flags?: number; content?: string; custom_id?: string; components?: unknown[] } } {
  return h.discord.callbacks().at(-1)!.body as never;
}

function recorded(h: BotHarness): InteractionRecord[] {
  const records: InteractionRecord[] = [];
  h.router.onInteraction((r) => records.push(r));
  return records;
}

botTest.override({ harness: { commands: withProbes } });
const test = botTest;

describe('selects', () => {
  test('a string select routes with its values and updates the message in place (type 7)', async ({ bot: h }) => {
    const records = recorded(h);
    await h.run(stringSelectPress(pickId.encode({ userId: ADMIN_ID }), ['a', 'b']));
    expect(last(h)).toMatchObject({ type: 7, data: { content: 'picked a,b', components: [] } });
    expect(records[0]).toMatchObject({ kind: 'select', command: 'probe', subcommand: 'pick', outcome: 'ok' });
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ command: 'select probe:pick', outcome: 'ok' });
  });

  test('a slow update is deferred as DEFERRED_UPDATE_MESSAGE (type 6), then edits the message', async ({ bot: h }) => {
    await h.run(stringSelectPress(pickId.encode({ userId: ADMIN_ID }), ['slow']));
    expect(h.discord.callbacks().map((c) => (c.body as { type: number }).type)).toEqual([6]);
    expect(h.discord.edits().at(-1)!.body).toMatchObject({ content: 'picked slow' });
  });

  test("someone else's select is refused privately", async ({ bot: h }) => {
    await h.run(stringSelectPress(pickId.encode({ userId: ADMIN_ID }), ['a'], { userId: MEMBER_ID }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
  });

  test('a channel select carries its resolved channels', async ({ bot: h }) => {
    await h.run(
      channelSelectPress(channelId.encode({}), [
        { id: '1300000000000000009', name: 'news', type: ChannelType.GuildAnnouncement },
        { id: '1300000000000000008', name: 'posts' },
      ]),
    );
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, content: '1300000000000000009=news/5,1300000000000000008=posts/0' } });
  });

  test('a role select carries its resolved roles; its preconditions hold', async ({ bot: h }) => {
    await h.run(roleSelectPress(rolesId.encode({}), [{ id: '1500000000000000001', name: 'Editors' }]));
    expect(last(h)).toMatchObject({ type: 7, data: { content: 'roles Editors' } });
    await h.run(roleSelectPress(rolesId.encode({}), [{ id: '1500000000000000001', name: 'Editors' }], { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
  });

  test('a select of another type under a select id, or a stale id, is expired', async ({ bot: h }) => {
    await h.run(roleSelectPress(channelId.encode({}), [{ id: '1500000000000000001', name: 'Editors' }]));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    await h.run(stringSelectPress('probe:gone', ['a']));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(h.logs.filter((l) => l.msg === 'interaction').map((l) => l.outcome)).toEqual(['user_error', 'user_error']);
  });
});

describe('modals', () => {
  test('a button opens a modal of Labels (type 9), never deferred first', async ({ bot: h }) => {
    await h.run(buttonPress(openId.encode({})));
    const calls = h.discord.callbacks();
    expect(calls).toHaveLength(1);
    expect(last(h)).toMatchObject({ type: 9, data: { custom_id: formId.encode({}) } });
    expect(last(h).data!.components!.map((c) => (c as { component: { type: number } }).component.type)).toEqual([4, 8, 22]);
  });

  test('a slash command opens a modal', async ({ bot: h }) => {
    await h.run(chatInput('probe', undefined));
    expect(last(h)).toMatchObject({ type: 9, data: { custom_id: formId.encode({}) } });
  });

  test('a modal of a Label text input, channel select and checkbox group submits its values', async ({ bot: h }) => {
    await h.run(
      modalSubmitted(formId.encode({}), [
        field.text('account', 'nasa'),
        field.channelSelect('channel', [{ id: '1300000000000000009', name: 'news', type: ChannelType.GuildAnnouncement }]),
        field.checkboxGroup('kinds', ['post', 'reel']),
      ]),
    );
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, content: 'account=nasa channel=1300000000000000009 kinds=post+reel' } });
  });

  test('an empty checkbox group reads as no values', async ({ bot: h }) => {
    await h.run(modalSubmitted(formId.encode({}), [field.text('account', 'esa'), field.channelSelect('channel', [{ id: '1300000000000000008', name: 'posts' }]), field.checkboxGroup('kinds', [])]));
    expect(last(h)).toMatchObject({ type: 4, data: { content: 'account=esa channel=1300000000000000008 kinds=' } });
  });
});

describe('message commands', () => {
  test('a message command gets its target message, and is labelled by its name', async ({ bot: h }) => {
    const records = recorded(h);
    const raw = messageCommand('Feeds', { id: '1600000000000000001', content: 'https://www.instagram.com/p/abc/' });
    await h.run(raw);
    expect(last(h)).toMatchObject({
      type: 4,
      data: { flags: MessageFlags.Ephemeral, content: `target 1600000000000000001 in ${raw.channel.id}: https://www.instagram.com/p/abc/` },
    });
    expect(records[0]).toMatchObject({ kind: 'message_command', command: 'Feeds', subcommand: 'none', outcome: 'ok' });
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ command: 'message Feeds' });
  });

  test('an unknown message command is explained and labelled unknown', async ({ bot: h }) => {
    const records = recorded(h);
    await h.run(messageCommand('Not ours'));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(records[0]).toMatchObject({ kind: 'message_command', command: 'unknown', outcome: 'unknown_command' });
  });

  test('its definition has a localized name and no description', ({ bot: h }) => {
    void h;
    const body = probeMessage.data.toJSON();
    expect(body).toMatchObject({ name: 'Feeds', type: 3, contexts: [0] });
    expect(body).not.toHaveProperty('description');
    expect(body.name_localizations).toMatchObject({ 'en-US': 'Feeds', 'es-ES': expect.any(String), 'es-419': expect.any(String), fr: 'Feeds' });
  });
});
