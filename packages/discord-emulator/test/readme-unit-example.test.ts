/** The unit-test example of ../README.md, run as a test; the README quotes the region verbatim. */
import { expect, test } from 'vitest';
import { quotedByReadme } from './readme.js';
// #region readme
import { Client, Events, MessageFlags } from 'discord.js';
import { dispatchInteraction, interactionPayloads, RestRecorder } from '@feedbot/discord-emulator/testing';

const { chatInput } = interactionPayloads({ guildId: '222222222222222222', userId: '333333333333333333' });

test('/ping is answered ephemerally, in the language of the user', async () => {
  const recorder = new RestRecorder();
  const bot = new Client({ intents: [], rest: recorder.rest });
  bot.rest.setToken('any-token');
  bot.on(Events.InteractionCreate, async (interaction) => {
    if (!interaction.isChatInputCommand()) return;
    const content = interaction.locale === 'es-ES' ? 'hola' : 'hello';
    await interaction.reply({ content, flags: MessageFlags.Ephemeral });
  });

  const raw = chatInput('ping', undefined, {}, { locale: 'es-ES' });
  dispatchInteraction(bot, raw);
  const callback = await recorder.callback(raw.id);
  expect(callback.body).toMatchObject({ type: 4, data: { content: 'hola', flags: MessageFlags.Ephemeral } });

  await bot.destroy();
});
// #endregion readme

test('the README quotes this example', () => {
  expect(quotedByReadme(import.meta.url)).toBe(true);
});
