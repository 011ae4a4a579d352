/**
 * REST faults (rest-faults.ts), seen by a real discord.js client: an injected 500 on a message
 * post is retried by discord.js until it gets through, an injected 429 is waited out for its
 * `retry_after`, and neither strikes logging in or anything but message and answer calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TextChannel } from 'discord.js';
import { RestFaults, type DiscordEmulator } from '../src/index.js';
import { CHANNEL_ID, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator;
let client: Client;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = await loginClient(emu);
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

describe('REST faults', () => {
  it('a 500 on the first try of a message post: discord.js tries again and the message lands once', async () => {
    let roll = 0;
    // The first roll strikes, the next ones pass.
    emu.restFaults.set([{ kind: 'error', probability: 0.5 }], () => (roll++ === 0 ? 0 : 0.9));
    try {
      const channel = (await client.channels.fetch(CHANNEL_ID)) as TextChannel;
      const sent = await channel.send('after a 500');
      expect(emu.restFaults.injected()).toEqual({ error: 1 });
      expect(emu.messages({ channelId: CHANNEL_ID }).filter((m) => m.content === 'after a 500').map((m) => m.id)).toEqual([sent.id]);
    } finally {
      emu.restFaults.clear();
    }
  });

  it('a 429 is waited out for its retry_after, then the post goes through', async () => {
    let roll = 0;
    emu.restFaults.set([{ kind: 'rate_limited', probability: 0.5, retryAfterMs: 400 }], () => (roll++ === 0 ? 0 : 0.9));
    try {
      const channel = (await client.channels.fetch(CHANNEL_ID)) as TextChannel;
      const started = performance.now();
      await channel.send('after a 429');
      expect(performance.now() - started).toBeGreaterThanOrEqual(350);
      expect(emu.restFaults.injected()).toMatchObject({ rate_limited: 1 });
    } finally {
      emu.restFaults.clear();
    }
  });

  it('only answer and message calls are struck; a 429 never an interaction callback', () => {
    const faults = new RestFaults(() => 0);
    faults.set([{ kind: 'rate_limited', probability: 1 }]);
    expect(faults.pick(['interactions', '1', 'tok', 'callback'])).toBeUndefined();
    expect(faults.pick(['webhooks', '1', 'tok', 'messages', '@original'])?.status).toBe(429);
    expect(faults.pick(['gateway', 'bot'])).toBeUndefined();
    expect(faults.pick(['applications', '1', 'commands'])).toBeUndefined();
    faults.set([{ kind: 'error', probability: 1 }]);
    expect(faults.pick(['interactions', '1', 'tok', 'callback'])?.status).toBe(500);
    expect(faults.pick(['channels', '1', 'messages'])?.status).toBe(500);
    expect(() => faults.set([{ kind: 'error', probability: -1 }])).toThrow();
  });
});
