/**
 * vitest fixtures over the helpers: an emulator and a logged-in discord.js client, started for a
 * test (`emulatorTest`) or shared by a file whose tests each install the bot's handler (`botTest`).
 */
import { Events, type Client, type Interaction } from 'discord.js';
import { test } from 'vitest';
import type { DiscordEmulator, EmulatorOptions } from '../src/index.js';
import { GUILD_ID, SIMPLE_COMMANDS, loginClient, startTestEmulator } from './helpers.js';

export interface EmulatorFixtures {
  /** Emulator options for the test; change with `emulatorTest.override({ emulatorOptions })` in a describe. */
  emulatorOptions: Partial<EmulatorOptions>;
  emu: DiscordEmulator;
  client: Client;
}

/** A fresh emulator and client per test, closed after it. */
export const emulatorTest = test.extend<EmulatorFixtures>({
  emulatorOptions: {},
  emu: async ({ emulatorOptions }, use) => {
    const emu = await startTestEmulator(emulatorOptions);
    await use(emu);
    await emu.close();
  },
  client: async ({ emu }, use) => {
    const client = await loginClient(emu);
    await use(client);
    await client.destroy();
  },
});

type Handler = (interaction: Interaction) => Promise<void>;

/** The bot under test: what it does with an interaction, and what its handler threw. */
export interface BotUnderTest {
  handle(handler: Handler): void;
  /** Resolves with the next error the handler throws. */
  nextError(timeoutMs?: number): Promise<unknown>;
}

interface SharedBot {
  emu: DiscordEmulator;
  handler: Handler;
  errors: unknown[];
}

const idle: Handler = async () => {};

/**
 * One emulator (a short 800 ms acknowledgement deadline, SIMPLE_COMMANDS in GUILD_ID) and one
 * client per file; every test starts with empty records and a bot that does nothing.
 */
export const botTest = test.extend<{ shared: SharedBot; fresh: void; emu: DiscordEmulator; bot: BotUnderTest }>({
  shared: [
    // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern; there are none.
    async ({}, use) => {
      // Short enough to keep the late-reply tests fast, long enough for a busy machine.
      const emu = await startTestEmulator({ ackDeadlineMs: 800 });
      emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
      const client = await loginClient(emu);
      const shared: SharedBot = { emu, handler: idle, errors: [] };
      client.on(Events.InteractionCreate, (interaction) => {
        shared.handler(interaction).catch((error: unknown) => shared.errors.push(error));
      });
      await use(shared);
      await client.destroy();
      await emu.close();
    },
    { scope: 'file' },
  ],
  fresh: [
    async ({ shared }, use) => {
      shared.emu.clearRecords();
      shared.handler = idle;
      shared.errors.length = 0;
      await use();
    },
    { auto: true },
  ],
  emu: async ({ shared }, use) => use(shared.emu),
  bot: async ({ shared }, use) => {
    await use({
      handle(handler) {
        shared.handler = handler;
      },
      async nextError(timeoutMs = 3000) {
        const deadline = Date.now() + timeoutMs;
        while (shared.errors.length === 0) {
          if (Date.now() > deadline) throw new Error('handler did not fail');
          await new Promise((r) => setTimeout(r, 10));
        }
        return shared.errors.shift();
      },
    });
  },
});
