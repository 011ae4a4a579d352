import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, sampleStats } from '../helpers/bot.js';

const stats = sampleStats({ feedsActivos: 1 });

describe('the 3-second deadline', () => {
  botTest('a fast API is answered with a single callback (no deferral)', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, stats, { headers: rl() });
    await h.run(chatInput('stats', undefined));
    expect(h.discord.calls.map((c) => `${c.method} ${c.path.split('/').at(-1)}`)).toEqual(['POST callback']);
    expect((h.discord.callbacks()[0]!.body as { type: number }).type).toBe(4);
  });

  botTest('with the default settings, a 2 s API is deferred within 3 s and the answer edited in later', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, stats, { headers: rl() }).delay(2_000);
    const dispatched = Date.now();
    await h.run(chatInput('stats', undefined));
    const [defer] = h.discord.callbacks();
    const [edit] = h.discord.edits();
    expect(defer!.body).toEqual({ type: 5, data: { flags: 0 } }); // public, as /stats answers publicly
    expect(defer!.at - dispatched).toBeLessThan(3_000);
    expect(edit!.at).toBeGreaterThan(defer!.at);
    expect(edit!.at - dispatched).toBeGreaterThanOrEqual(1_900);
    expect((edit!.body as { embeds: { title: string }[] }).embeds[0]!.title).toBe('Forwarding statistics');
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ deferred: true, outcome: 'ok' });
  });

  describe('deferring after 20 ms', () => {
    botTest.override({ harness: { deferAfterMs: 20 } });

    botTest('an ephemeral answer is deferred ephemeral', async ({ bot: h }) => {
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() }).delay(200);
      await h.run(chatInput('feed', 'delete', { id: 1 }));
      expect(h.discord.callbacks()[0]!.body).toEqual({ type: 5, data: { flags: MessageFlags.Ephemeral } });
      expect((h.discord.edits()[0]!.body as { components: unknown[] }).components).toHaveLength(1);
    });

    botTest('an error after a public deferral replaces the placeholder with an ephemeral follow-up', async ({ bot: h }) => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(403, {}, { headers: rl() }).delay(200);
      await h.run(chatInput('stats', undefined));
      const seq = h.discord.calls.map((c) => `${c.method} ${c.path.split('/').slice(-2).join('/')}`);
      expect(seq).toEqual([expect.stringMatching(/^POST .*\/callback$/), 'DELETE messages/@original', expect.stringMatching(/^POST /)]);
      const followUp = h.discord.followUps()[0]!.body as { flags: number; embeds: { description: string }[] };
      expect(followUp.flags).toBe(MessageFlags.Ephemeral);
      expect(followUp.embeds[0]!.description).toMatch(/`stats:read`/);
    });
  });
});

describe('the per-key rate gate', () => {
  botTest('once the window is spent, commands get the 429 explanation at once and no request is sent', async ({ bot: h }) => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    h.api
      .intercept({ path: '/v1/feeds', method: 'GET' })
      .reply(200, sampleFeeds, { headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) } });
    await h.run(chatInput('feed', 'list'));
    // No interceptor is left: a request now would fail with a connection error, not a 429 text.
    await h.run(chatInput('stats', undefined));
    await h.run(chatInput('feed', 'posts', { id: 1 }, { locale: 'es-ES' }));
    const [, statsReply, postsReply] = h.discord.callbacks().map((c) => c.body as { data: { flags: number; embeds: { description: string }[] } });
    expect(statsReply!.data.flags).toBe(MessageFlags.Ephemeral);
    expect(statsReply!.data.embeds[0]!.description).toContain(`resets <t:${reset}:R> (at <t:${reset}:T>)`);
    expect(postsReply!.data.embeds[0]!.description).toContain(`se restablece <t:${reset}:R> (a las <t:${reset}:T>)`);
    const lines = h.logs.filter((l) => l.msg === 'interaction');
    expect(lines.slice(1).map((l) => [l.outcome, l.upstreamStatus])).toEqual([
      ['rate_limited_local', null],
      ['rate_limited_local', null],
    ]);
  });

  describe('with a clock the test moves', () => {
    let now = Date.now();
    botTest.override({ harness: { now: () => now } });

    botTest('gives the budget back after the reset', async ({ bot: h }) => {
      now = Date.now();
      const reset = Math.floor(now / 1000) + 5;
      h.api
        .intercept({ path: '/v1/stats', method: 'GET' })
        .reply(200, stats, { headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) } });
      await h.run(chatInput('stats', undefined));
      await h.run(chatInput('stats', undefined));
      expect(h.logs.filter((l) => l.msg === 'interaction').at(-1)).toMatchObject({ outcome: 'rate_limited_local' });
      now += 6_000;
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, stats, { headers: rl(99) });
      await h.run(chatInput('stats', undefined));
      expect(h.logs.filter((l) => l.msg === 'interaction').at(-1)).toMatchObject({ outcome: 'ok', upstreamStatus: 200 });
    });
  });
});
