/** Discord's real clock: the default 3 s acknowledgement deadline and token expiry. */
import { describe, expect, vi } from 'vitest';
import { AttachmentBuilder, DiscordAPIError, Events } from 'discord.js';
import { emulatorTest } from './fixtures.js';
import { APP_ID } from './helpers.js';

describe('interaction lifecycle at Discord defaults', () => {
  emulatorTest('with the default 3 s deadline, a reply at 1.5 s succeeds and one at 3.3 s fails with 10062', async ({ emu, client }) => {
    expect(emu.ackDeadlineMs).toBe(3000);
    emu.setCommands([{ name: 'slow', description: 'Slow', options: [{ type: 4, name: 'ms', description: 'delay', required: true }] }]);
    const outcomes = new Map<number, string>();
    client.on(Events.InteractionCreate, async (i) => {
      if (!i.isChatInputCommand()) return;
      const ms = i.options.getInteger('ms', true);
      await new Promise((r) => setTimeout(r, ms));
      try {
        await i.reply({ content: `after ${ms}` });
        outcomes.set(ms, 'ok');
      } catch (error) {
        outcomes.set(ms, error instanceof DiscordAPIError ? String(error.code) : 'other');
      }
    });
    const fast = emu.sendInteraction({ type: 'command', commandName: 'slow', options: { ms: 1500 } });
    const late = emu.sendInteraction({ type: 'command', commandName: 'slow', options: { ms: 3300 } });
    expect((await fast.waitForFinal({ timeoutMs: 5000 })).original?.content).toBe('after 1500');
    await late.waitFor((s) => s.errors.length > 0, 6000);
    expect(outcomes.get(1500)).toBe('ok');
    await vi.waitFor(() => expect(outcomes.get(3300)).toBe('10062'));
    expect(late.snapshot().state).toBe('expired');
  });

  emulatorTest('stores files a bot attaches (multipart) and serves them', async ({ emu, client }) => {
    emu.setCommands([{ name: 'export', description: 'Export' }]);
    client.on(Events.InteractionCreate, async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply({ content: 'here', files: [new AttachmentBuilder(Buffer.from('a,b\n1,2\n'), { name: 'feeds.csv' })] });
    });
    const s = await emu.sendInteraction({ type: 'command', commandName: 'export' }).waitForFinal();
    const attachment = s.original?.attachments[0];
    expect(attachment).toMatchObject({ filename: 'feeds.csv', size: 8 });
    const res = await fetch(attachment!.url);
    expect(await res.text()).toBe('a,b\n1,2\n');
    expect(emu.calls[emu.calls.length - 1]?.files).toMatchObject([{ name: 'feeds.csv', size: 8 }]);
    expect(emu.calls.every((c) => !JSON.stringify(c).includes(APP_ID + '.'))).toBe(true);
  });
});

describe('interaction tokens', () => {
  emulatorTest.override({ emulatorOptions: { tokenLifetimeMs: 300 } });

  emulatorTest('after the token lifetime, edits fail with 401 50027 Invalid Webhook Token', async ({ emu, client }) => {
    emu.setCommands([{ name: 'ping', description: 'Ping' }]);
    const errors: unknown[] = [];
    client.on(Events.InteractionCreate, async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      await new Promise((r) => setTimeout(r, 400));
      await i.editReply({ content: 'too late' }).catch((e: unknown) => errors.push(e));
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await h.waitFor((s) => s.errors.length > 0, 3000);
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toMatchObject({ status: 401, code: 50027 });
    expect(emu.violations.map((v) => v.kind)).toEqual(['invalid_webhook_token']);
  });
});
