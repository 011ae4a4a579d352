/**
 * The stories' wait helper (story-kit.ts, messageWhen), against the real Discord emulator and a
 * real discord.js client playing a bot whose batch edits one message twice: a progress edit at
 * once, the report only when the test lets it go. A story that read a batch's last message once
 * the press had settled (100 ms without an edit) would meet the progress message on a loaded
 * machine; here the late edit is late on purpose, so the check does not depend on the load.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, Client, Events, GatewayIntentBits, MessageFlags, type Interaction } from 'discord.js';
import { fixedSnowflake, startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { lastMessage, messageWhen, titled } from './story-kit.js';

const APP_ID = fixedSnowflake(300_000_900_000, 1);
const GUILD_ID = fixedSnowflake(300_000_900_000, 2);
const CHANNEL_ID = fixedSnowflake(300_000_900_000, 3);
const TOKEN = `${Buffer.from(APP_ID).toString('base64')}.story-kit.test-token-not-a-secret`;
const [PROGRESS, REPORT] = ['Deleting 2 feeds…', 'Feeds deleted'];

describe('story-kit: waiting for the edit a story asserts', () => {
  let emu: DiscordEmulator;
  let client: Client;
  /** Lets the bot send the batch's report; a new gate per press. */
  let release: () => void = () => undefined;

  beforeAll(async () => {
    emu = await startEmulator({
      applicationId: APP_ID,
      botToken: TOKEN,
      guilds: [{ id: GUILD_ID, name: 'Kit', ownerId: fixedSnowflake(300_000_900_000, 4), channels: [{ id: CHANNEL_ID, name: 'news', type: 0 }], roles: [], members: [] }],
    });
    emu.setCommands([{ name: 'purge', description: 'Deletes feeds' }], GUILD_ID);
    client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiUrl } });
    client.on(Events.InteractionCreate, (i: Interaction) => {
      void (async () => {
        if (i.isChatInputCommand()) {
          const yes = new ButtonBuilder().setCustomId('purge:yes').setLabel('Delete').setStyle(ButtonStyle.Danger);
          await i.reply({ embeds: [{ title: 'Delete 2 feeds?' }], components: [new ActionRowBuilder<ButtonBuilder>().addComponents(yes)], flags: MessageFlags.Ephemeral });
        } else if (i.isButton()) {
          const gate = new Promise<void>((resolve) => (release = resolve));
          await i.update({ embeds: [{ title: PROGRESS }], components: [] });
          await gate;
          await i.editReply({ embeds: [{ title: REPORT, description: '2 deleted' }] });
        }
      })().catch((error: unknown) => console.error(error));
    });
    const ready = once(client, Events.ClientReady, { signal: AbortSignal.timeout(15_000) });
    await client.login(TOKEN);
    await ready;
  }, 30_000);

  afterAll(async () => {
    await client?.destroy();
    await emu?.close();
  });

  /** The question, answered, and its button pressed: the press's handle. */
  async function pressed() {
    const asked = await emu.sendInteraction({ type: 'command', commandName: 'purge', guildId: GUILD_ID, channelId: CHANNEL_ID }).waitForFinal({ timeoutMs: 15_000 });
    return emu.pressButton({ messageId: lastMessage(asked).id, customId: 'purge:yes' });
  }

  it('a press settled at its progress edit: the report that comes later is what the story reads', async () => {
    const press = await pressed();
    // What the stories did: wait until the press settles, read the last message once. It is the progress.
    expect(lastMessage(await press.waitForFinal({ timeoutMs: 15_000 })).embeds[0]?.title).toBe(PROGRESS);
    const waiting = messageWhen(emu, press.id, titled(REPORT), { timeoutMs: 15_000, what: 'the report' });
    setTimeout(() => release(), 300);
    const report = await waiting;
    expect(report.embeds[0]).toEqual({ type: 'rich', title: REPORT, description: '2 deleted' });
  });

  it('an edit that never comes: fails at the deadline, showing the last message seen', async () => {
    const press = await pressed();
    await press.waitForFinal({ timeoutMs: 15_000 });
    const startedAt = Date.now();
    const error = await messageWhen(emu, press.id, titled(REPORT), { timeoutMs: 400, what: 'the report' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    release();
    expect(error?.message).toMatch(/the report not seen within 400 ms/);
    expect(error?.message).toContain(PROGRESS);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400);
  });
});
