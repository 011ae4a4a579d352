/** The emulator example of ../README.md, run as a test; the README quotes the region verbatim. */
import { expect, test } from 'vitest';
import { quotedByReadme } from './readme.js';
// #region readme
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { generateGuilds, startEmulator } from '@feedbot/discord-emulator';

test('the bot answers /ping', async () => {
  const token = 'any-token'; // the bot and the emulator only have to agree on it
  const emu = await startEmulator({ applicationId: '111111111111111111', botToken: token, guilds: generateGuilds(1) });
  emu.setCommands([{ name: 'ping', description: 'Ping' }]); // or let the bot register its own

  const bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiUrl } });
  bot.on(Events.InteractionCreate, async (interaction) => {
    if (interaction.isChatInputCommand()) await interaction.reply(`pong, ${interaction.user.username}`);
  });
  await bot.login(token);
  await emu.waitForReady();

  const answer = await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitForFinal();
  expect(answer.original?.content).toBe('pong, tester');
  expect(emu.violations).toEqual([]); // nothing Discord would have rejected

  await bot.destroy();
  await emu.close();
});
// #endregion readme

test('the README quotes this example', () => {
  expect(quotedByReadme(import.meta.url)).toBe(true);
});
