import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  DiscordAPIError,
  Events,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
  type Client,
  type Interaction,
} from 'discord.js';
import { buildChatInputInteraction, normalizeGuild, type DiscordEmulator } from '../src/index.js';
import { CHANNEL_ID, GUILD, GUILD_ID, OTHER_CHANNEL_ID, SIMPLE_COMMANDS, USER_ID, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator;
let client: Client;
/** The bot under test: each test installs its own interaction handler. */
let handler: (interaction: Interaction) => Promise<void> = async () => {};
let handlerErrors: unknown[] = [];

beforeAll(async () => {
  // Short enough to keep the late-reply test fast, long enough for a busy machine.
  emu = await startTestEmulator({ ackDeadlineMs: 800 });
  emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
  client = await loginClient(emu);
  client.on(Events.InteractionCreate, (interaction) => {
    handler(interaction).catch((error: unknown) => handlerErrors.push(error));
  });
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

beforeEach(() => {
  emu.clearRecords();
  handlerErrors = [];
  handler = async () => {};
});

/** Resolves with the next error the handler throws. */
async function nextHandlerError(timeoutMs = 3000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (handlerErrors.length === 0) {
    if (Date.now() > deadline) throw new Error('handler did not fail');
    await new Promise((r) => setTimeout(r, 10));
  }
  return handlerErrors.shift();
}

describe('chat input commands', () => {
  it('reaches interactionCreate with options, locale and member permissions', async () => {
    const seen: Record<string, unknown>[] = [];
    handler = async (i) => {
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
    };
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

  it('reply with embeds and the ephemeral flag is recorded and stored as ephemeral', async () => {
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ embeds: [{ title: 'Feeds', description: 'none yet', fields: [{ name: 'a', value: 'b' }] }], flags: MessageFlags.Ephemeral });
    };
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

  it('deferReply then editReply replaces the loading message and keeps it ephemeral', async () => {
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply({ flags: MessageFlags.Ephemeral });
      await new Promise((r) => setTimeout(r, 50));
      await i.editReply({ content: 'done' });
    };
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

  it('followUp returns a message and is listed after the original; deleteReply removes the original', async () => {
    const followUpIds: string[] = [];
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ content: 'first' });
      const m = await i.followUp({ content: 'second', flags: MessageFlags.Ephemeral });
      followUpIds.push(m.id);
      await i.deleteReply();
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitFor((x) => x.originalDeleted && x.followUps.length === 1);
    expect(s.original).toBeNull();
    expect(s.followUps[0]?.content).toBe('second');
    expect(s.followUps[0]?.id).toBe(followUpIds[0]);
    expect(s.followUps[0]?.flags).toBe(MessageFlags.Ephemeral);
    expect(emu.violations).toEqual([]);
  });

  it('after a defer, the first followUp becomes the deferred reply', async () => {
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      await i.followUp({ content: 'answer' });
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    expect(s.original?.content).toBe('answer');
    expect(s.followUps).toEqual([]);
  });

  it('reply withResponse gets an interaction callback response with the message', async () => {
    let messageId: string | undefined;
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      const response = await i.reply({ content: 'hello', withResponse: true });
      messageId = response.resource?.message?.id;
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    expect(messageId).toBeDefined();
    expect(messageId).toBe(s.original?.id);
    expect(s.ack?.withResponse).toBe(true);
  });

  it('a member without default_member_permissions cannot run the command unless overridden', async () => {
    handler = async (i) => {
      if (i.isChatInputCommand()) await i.reply({ content: 'admin ok' });
    };
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'admin', userId: USER_ID })).toThrow(/default_member_permissions/);
    const withPerm = emu.sendInteraction({ type: 'command', commandName: 'admin', userId: USER_ID, permissions: '32' });
    expect((await withPerm.waitForFinal()).original?.content).toBe('admin ok');
    const override = emu.sendInteraction({ type: 'command', commandName: 'admin', userId: USER_ID, ignoreDefaultMemberPermissions: true });
    expect((await override.waitForFinal()).original?.content).toBe('admin ok');
  });

  it('refuses what the Discord client would not send', () => {
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'nope' })).toThrow(/not registered/);
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'add', options: {} })).toThrow(/required option "handle"/);
    expect(() => emu.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'add', options: { handle: 'x', interval: 7 } })).toThrow(/choices/);
  });
});

describe('autocomplete, modals and components', () => {
  it('autocomplete respond stores the choices', async () => {
    handler = async (i) => {
      if (!i.isAutocomplete()) return;
      const typed = i.options.getFocused();
      await i.respond([{ name: `${typed}-one`, value: `${typed}1` }]);
    };
    const h = emu.sendInteraction({ type: 'autocomplete', commandName: 'feed', subcommand: 'add', options: { handle: 'na' }, focused: 'handle' });
    const s = await h.waitForFinal();
    expect(s.ack?.type).toBe(8);
    expect(h.choices()).toEqual([{ name: 'na-one', value: 'na1' }]);
  });

  it('showModal with a Label-wrapped text input, then a modal submit round trip', async () => {
    const submitted: string[] = [];
    handler = async (i) => {
      if (i.isChatInputCommand()) {
        const modal = new ModalBuilder()
          .setCustomId('feed-modal')
          .setTitle('New feed')
          .addLabelComponents(new LabelBuilder().setLabel('Handle').setTextInputComponent(new TextInputBuilder().setCustomId('handle').setStyle(TextInputStyle.Short)));
        await i.showModal(modal);
      } else if (i.isModalSubmit()) {
        submitted.push(i.fields.getTextInputValue('handle'));
        await i.reply({ content: `added ${i.fields.getTextInputValue('handle')}`, flags: MessageFlags.Ephemeral });
      }
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const shown = await h.waitForFinal();
    expect(shown.ack?.type).toBe(9);
    expect(shown.modal?.custom_id).toBe('feed-modal');
    const submit = h.submitModal({ handle: 'nasa' });
    const s = await submit.waitForFinal();
    expect(submitted).toEqual(['nasa']);
    expect(s.kind).toBe('modal_submit');
    expect(s.original?.content).toBe('added nasa');
    expect(emu.violations).toEqual([]);
  });

  it('modal built with deprecated action rows is accepted too', async () => {
    handler = async (i) => {
      if (i.isChatInputCommand()) {
        const modal = new ModalBuilder()
          .setCustomId('legacy')
          .setTitle('Legacy')
          .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(new TextInputBuilder().setCustomId('t').setLabel('Text').setStyle(TextInputStyle.Paragraph)));
        await i.showModal(modal);
      } else if (i.isModalSubmit()) {
        await i.reply({ content: i.fields.getTextInputValue('t') });
      }
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    const s = await h.submitModal({ t: 'hello' }).waitForFinal();
    expect(s.original?.content).toBe('hello');
  });

  it('a button press carries the stored message and update() edits it', async () => {
    const seenMessageIds: string[] = [];
    handler = async (i) => {
      if (i.isChatInputCommand()) {
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId('confirm').setLabel('Confirm').setStyle(ButtonStyle.Success),
          new ButtonBuilder().setCustomId('cancel').setLabel('Cancel').setStyle(ButtonStyle.Secondary),
        );
        await i.reply({ content: 'Sure?', components: [row] });
      } else if (i.isButton()) {
        seenMessageIds.push(i.message.id);
        await i.update({ content: `pressed ${i.customId}`, components: [] });
      }
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping', userId: USER_ID });
    const first = await h.waitForFinal();
    const press = h.pressButton('confirm');
    const s = await press.waitForFinal();
    expect(seenMessageIds).toEqual([first.original?.id]);
    expect(s.ack?.type).toBe(7);
    expect(s.userId).toBe(USER_ID);
    expect(s.original?.id).toBe(first.original?.id);
    expect(s.original?.content).toBe('pressed confirm');
    expect(s.original?.components).toEqual([]);
    expect(emu.message(first.original!.id)?.content).toBe('pressed confirm');
  });

  it('a string select sends the chosen values; values outside the options are refused', async () => {
    const chosen: string[][] = [];
    handler = async (i) => {
      if (i.isChatInputCommand()) {
        const select = new StringSelectMenuBuilder()
          .setCustomId('pick')
          .setMinValues(1)
          .setMaxValues(2)
          .addOptions({ label: 'Posts', value: 'post' }, { label: 'Reels', value: 'reel' }, { label: 'Stories', value: 'story' });
        await i.reply({ content: 'Pick', components: [new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(select)] });
      } else if (i.isStringSelectMenu()) {
        chosen.push(i.values);
        await i.update({ content: `picked ${i.values.join('+')}`, components: [] });
      }
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    expect(() => h.selectMenu('pick', ['video'])).toThrow(/no option "video"/);
    expect(() => h.selectMenu('pick', ['post', 'reel', 'story'])).toThrow(/1–2 values/);
    const s = await h.selectMenu('pick', ['post', 'story']).waitForFinal();
    expect(chosen).toEqual([['post', 'story']]);
    expect(s.original?.content).toBe('picked post+story');
  });

  it('deferUpdate then editReply edits the component message', async () => {
    handler = async (i) => {
      if (i.isChatInputCommand()) {
        await i.reply({ content: 'v1', components: [new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('next').setLabel('Next').setStyle(ButtonStyle.Primary))] });
      } else if (i.isButton()) {
        await i.deferUpdate();
        await i.editReply({ content: 'v2' });
      }
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    const s = await h.pressButton('next').waitForFinal();
    expect(s.ack?.type).toBe(6);
    expect(s.original?.content).toBe('v2');
    expect(s.original?.edited_timestamp).not.toBeNull();
  });
});

describe('deadlines and double acknowledgement', () => {
  it('a reply after the acknowledgement deadline fails with 10062 Unknown interaction', async () => {
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      await new Promise((r) => setTimeout(r, emu.ackDeadlineMs + 150));
      await i.reply({ content: 'too late' });
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await expect(h.waitForAck(2000)).rejects.toThrow(/expired/);
    const error = await nextHandlerError();
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10062);
    expect((error as DiscordAPIError).status).toBe(404);
    expect(h.snapshot().state).toBe('expired');
    expect(emu.violations.map((v) => v.kind).sort()).toEqual(['ack_timeout', 'unknown_interaction']);
  });

  it('acknowledging twice fails with 40060', async () => {
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ content: 'one' });
      // discord.js refuses a second reply locally, so go through REST as a buggy bot might.
      await i.client.rest.post(`/interactions/${i.id}/${i.token}/callback`, { body: { type: 4, data: { content: 'two' } }, auth: false });
    };
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const error = await nextHandlerError();
    expect((error as DiscordAPIError).code).toBe(40060);
    expect((error as DiscordAPIError).status).toBe(400);
    expect(h.snapshot().original?.content).toBe('one');
    expect(h.snapshot().errors.map((e) => e.code)).toEqual([40060]);
    expect(emu.violations.map((v) => v.kind)).toEqual(['already_acknowledged']);
  });

  it('an interaction nobody answers expires and is recorded', async () => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping', channelId: CHANNEL_ID });
    const s = await h.waitFor((x) => x.state === 'expired', 2000);
    expect(s.ack).toBeNull();
    expect(emu.violations.map((v) => v.kind)).toEqual(['ack_timeout']);
  });
});

describe('raw payloads', () => {
  it('a payload built with the exported builders is dispatched as is and tracked', async () => {
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
    handler = async (i) => {
      if (!i.isChatInputCommand()) return;
      seen.push(`${i.id} ${i.channelId}`);
      await i.reply({ content: 'raw ok' });
    };
    const h = emu.sendInteraction({ type: 'raw', payload });
    const s = await h.waitForFinal();
    expect(h.id).toBe(payload.id);
    expect(seen).toEqual([`${payload.id} ${OTHER_CHANNEL_ID}`]);
    expect(s.original?.content).toBe('raw ok');
  });
});
