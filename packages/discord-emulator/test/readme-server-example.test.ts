/** The "server changes" example of ../README.md, run as a test; the README quotes the region verbatim. */
import { expect, test } from 'vitest';
import { quotedByReadme } from './readme.js';
// #region readme
import { once } from 'node:events';
import { Client, EmbedBuilder, Events, GatewayIntentBits, PermissionFlagsBits, type TextChannel } from 'discord.js';
import { generateGuilds, startEmulator } from '@feedbot/discord-emulator';

test('an admin changes the server while the bot runs', async () => {
  const token = 'any-token';
  const [guild] = generateGuilds(1);
  const emu = await startEmulator({ applicationId: '111111111111111111', botToken: token, guilds: [guild!] });
  const bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiUrl } });
  await bot.login(token);
  await emu.waitForReady();

  // An admin creates #audit: CHANNEL_CREATE reaches the bot's cache.
  const created = once(bot, Events.ChannelCreate);
  const { id } = emu.createChannel(guild!.id, { name: 'audit' }) as { id: string };
  await created;
  const audit = bot.channels.cache.get(id) as TextChannel;

  // Takes Embed Links from the bot there: Discord refuses an embed with 50013 Missing Permissions.
  emu.setPermissionOverwrite(id, emu.botUser.id, { type: 1, deny: PermissionFlagsBits.EmbedLinks });
  const embed = new EmbedBuilder().setTitle('Feed created');
  await expect(audit.send({ embeds: [embed] })).rejects.toMatchObject({ status: 403, code: 50013 });

  // Deletes it: discord.js forgets it (CHANNEL_DELETE), Discord answers 10003 Unknown Channel.
  const deleted = once(bot, Events.ChannelDelete);
  emu.deleteChannel(id);
  await deleted;
  expect(bot.channels.cache.has(id)).toBe(false);
  await expect(audit.send('still there?')).rejects.toMatchObject({ status: 404, code: 10003 });

  await bot.destroy();
  await emu.close();
});
// #endregion readme

test('the README quotes this example', () => {
  expect(quotedByReadme(import.meta.url)).toBe(true);
});
