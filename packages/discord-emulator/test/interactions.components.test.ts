/** Autocomplete, modals, buttons and selects through a real discord.js client. */
import { describe, expect } from 'vitest';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { USER_ID } from './helpers.js';
import { botTest } from './fixtures.js';

describe('autocomplete, modals and components', () => {
  botTest('autocomplete respond stores the choices', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (!i.isAutocomplete()) return;
      const typed = i.options.getFocused();
      await i.respond([{ name: `${typed}-one`, value: `${typed}1` }]);
    });
    const h = emu.sendInteraction({ type: 'autocomplete', commandName: 'feed', subcommand: 'add', options: { handle: 'na' }, focused: 'handle' });
    const s = await h.waitForFinal();
    expect(s.ack?.type).toBe(8);
    expect(h.choices()).toEqual([{ name: 'na-one', value: 'na1' }]);
  });

  botTest('showModal with a Label-wrapped text input, then a modal submit round trip', async ({ emu, bot }) => {
    const submitted: string[] = [];
    bot.handle(async (i) => {
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
    });
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

  botTest('modal built with deprecated action rows is accepted too', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (i.isChatInputCommand()) {
        const modal = new ModalBuilder()
          .setCustomId('legacy')
          .setTitle('Legacy')
          .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(new TextInputBuilder().setCustomId('t').setLabel('Text').setStyle(TextInputStyle.Paragraph)));
        await i.showModal(modal);
      } else if (i.isModalSubmit()) {
        await i.reply({ content: i.fields.getTextInputValue('t') });
      }
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    const s = await h.submitModal({ t: 'hello' }).waitForFinal();
    expect(s.original?.content).toBe('hello');
  });

  botTest('a button press carries the stored message and update() edits it', async ({ emu, bot }) => {
    const seenMessageIds: string[] = [];
    bot.handle(async (i) => {
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
    });
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

  botTest('a string select sends the chosen values; values outside the options are refused', async ({ emu, bot }) => {
    const chosen: string[][] = [];
    bot.handle(async (i) => {
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
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    expect(() => h.selectMenu('pick', ['video'])).toThrow(/no option "video"/);
    expect(() => h.selectMenu('pick', ['post', 'reel', 'story'])).toThrow(/1–2 values/);
    const s = await h.selectMenu('pick', ['post', 'story']).waitForFinal();
    expect(chosen).toEqual([['post', 'story']]);
    expect(s.original?.content).toBe('picked post+story');
  });

  botTest('deferUpdate then editReply edits the component message', async ({ emu, bot }) => {
    bot.handle(async (i) => {
      if (i.isChatInputCommand()) {
        await i.reply({ content: 'v1', components: [new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('next').setLabel('Next').setStyle(ButtonStyle.Primary))] });
      } else if (i.isButton()) {
        await i.deferUpdate();
        await i.editReply({ content: 'v2' });
      }
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitForFinal();
    const s = await h.pressButton('next').waitForFinal();
    expect(s.ack?.type).toBe(6);
    expect(s.original?.content).toBe('v2');
    expect(s.original?.edited_timestamp).not.toBeNull();
  });
});
