/** Discord's real clock: the default 3 s acknowledgement deadline and token expiry. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AttachmentBuilder, DiscordAPIError, Events, type Client } from 'discord.js';
import type { DiscordEmulator } from '../src/index.js';
import { APP_ID, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.destroy();
  await emu?.close();
  client = undefined;
  emu = undefined;
});

describe('interaction lifecycle at Discord defaults', () => {
  it('with the default 3 s deadline, a reply at 1.5 s succeeds and one at 3.3 s fails with 10062', async () => {
    emu = await startTestEmulator();
    expect(emu.ackDeadlineMs).toBe(3000);
    emu.setCommands([{ name: 'slow', description: 'Slow', options: [{ type: 4, name: 'ms', description: 'delay', required: true }] }]);
    client = await loginClient(emu);
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

  it('after the token lifetime, edits fail with 401 50027 Invalid Webhook Token', async () => {
    emu = await startTestEmulator({ tokenLifetimeMs: 300 });
    emu.setCommands([{ name: 'ping', description: 'Ping' }]);
    client = await loginClient(emu);
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

  it('stores files a bot attaches (multipart) and serves them', async () => {
    emu = await startTestEmulator();
    emu.setCommands([{ name: 'export', description: 'Export' }]);
    client = await loginClient(emu);
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
