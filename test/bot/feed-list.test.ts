import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { CHANNEL_ID, MEMBER_ID, MEMBER_PERMS, buttonPress, chatInput } from '../helpers/discord.js';
import { TEST_KEY, botTest, rl, sampleFeeds } from '../helpers/bot.js';

describe('/feed list', () => {
  // A day after the sample's latest post: whether feed #1 is stale does not depend on the day the suite runs.
  botTest.override({ harness: { now: () => Date.parse('2026-11-21T18:30:00.000Z') } });

  botTest('answers with one embed listing every feed, in one callback', async ({ bot: h }) => {
    h.api
      .intercept({ path: '/v1/feeds', method: 'GET', headers: { authorization: `Bearer ${TEST_KEY}` } })
      .reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'list', {}, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));

    const [callback] = h.discord.callbacks();
    expect(h.discord.callbacks()).toHaveLength(1);
    expect(callback!.body).toEqual({
      type: 4,
      data: expect.objectContaining({
        embeds: [
          {
            title: 'Feeds',
            color: 0x5865f2,
            footer: { text: '2 feeds · Server plan · page 1/1' },
            fields: [
              {
                name: '#1 · @nasa',
                value: `<#${CHANNEL_ID}> · Active\nPosts + Reels · 0 filters\nLatest post: forwarded <t:${Date.parse('2026-11-20T18:30:00.000Z') / 1000}:R>`,
              },
              // The paused feed is marked (health warnings).
              { name: '#2 · @esa', value: '<#1300000000000000002> · Paused\nStories · 2 filters\nLatest post: none yet\n⏸️ Not active' },
            ],
          },
        ],
        // The panel (test/bot/feed-panel.test.ts): manage, channel, state, Only with a warning.
        components: expect.any(Array),
      }),
    });
    expect((callback!.body as { data: { flags?: number } }).data.flags ?? 0).toBe(0);
    const line = h.logs.find((l) => l.msg === 'interaction');
    expect(line).toMatchObject({ command: 'feed list', outcome: 'ok', upstreamStatus: 200, guild: expect.any(String) });
  });

  botTest('shows unknown states as they come and answers in Spanish for es-ES', async ({ bot: h }) => {
    const feeds = { ...sampleFeeds, feeds: [{ ...sampleFeeds.feeds[0]!, estado: 'en_revision' }], total: 1 };
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, feeds, { headers: rl() });
    await h.run(chatInput('feed', 'list', {}, { locale: 'es-ES' }));
    const data = (h.discord.callbacks()[0]!.body as { data: { embeds: { fields: { value: string }[]; footer: { text: string } }[] } }).data;
    expect(data.embeds[0]!.fields[0]!.value).toContain('`en_revision`');
    expect(data.embeds[0]!.fields[0]!.value).toContain('Publicaciones + Reels');
    expect(data.embeds[0]!.footer.text).toBe('1 feed · plan Servidor · página 1/1');
  });

  botTest('names a plan it does not know as the API sent it', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { ...sampleFeeds, plan: 'gold' }, { headers: rl() });
    await h.run(chatInput('feed', 'list'));
    const data = (h.discord.callbacks()[0]!.body as { data: { embeds: { footer: { text: string } }[] } }).data;
    expect(data.embeds[0]!.footer.text).toBe('2 feeds · gold plan · page 1/1');
  });

  botTest('filters by channel', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'list', { canal: { channel: { id: '1300000000000000002', name: 'news' } } }));
    const embed = (h.discord.callbacks()[0]!.body as { data: { embeds: { title: string; fields: { name: string }[] }[] } }).data.embeds[0]!;
    expect(embed.title).toBe('Feeds in #news');
    expect(embed.fields.map((f) => f.name)).toEqual(['#2 · @esa']);
  });

  botTest('pages long lists within every embed limit, with Previous/Next for the invoker only', async ({ bot: h }) => {
    const many = Array.from({ length: 57 }, (_, i) => ({
      ...sampleFeeds.feeds[0]!,
      id: i + 1,
      cuenta: `account_${'x'.repeat(20)}${i}`.slice(0, 30),
      estado: 'x'.repeat(500), // unknown and long: truncated, never over a limit
    }));
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: many, total: 57, plan: 'server' }, { headers: rl() });
    await h.run(chatInput('feed', 'list', { pagina: 2 }));
    const data = (h.discord.callbacks()[0]!.body as {
      data: { embeds: { fields: { name: string; value: string }[]; footer: { text: string }; title: string }[]; components: { components: { custom_id: string; disabled: boolean }[] }[] };
    }).data;
    const embed = data.embeds[0]!;
    expect(embed.fields.length).toBeLessThanOrEqual(25);
    const size = embed.title.length + embed.footer.text.length + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(size).toBeLessThanOrEqual(6000);
    for (const f of embed.fields) expect(f.value.length).toBeLessThanOrEqual(1024);
    expect(embed.footer.text).toMatch(/page 2\/\d+/);
    // The panel's last row: Only with a warning, then Previous/Next.
    const buttons = data.components.at(-1)!.components.slice(1);
    expect(buttons.map((b) => b.custom_id)).toEqual([expect.stringMatching(/^feed:list:1:-:/), expect.stringMatching(/^feed:list:3:-:/)]);
    expect(buttons.every((b) => b.custom_id.length <= 100)).toBe(true);

    // Next, pressed by the invoker: served from the cache (no new request), message updated (type 7).
    await h.run(buttonPress(buttons[1]!.custom_id));
    const update = h.discord.callbacks()[1]!.body as { type: number; data: { embeds: { footer: { text: string } }[] } };
    expect(update.type).toBe(7);
    expect(update.data.embeds[0]!.footer.text).toMatch(/page 3\//);

    // Someone else pressing it gets a private refusal and the message is untouched.
    await h.run(buttonPress(buttons[1]!.custom_id, { userId: MEMBER_ID }));
    const refusal = h.discord.callbacks()[2]!.body as { type: number; data: { flags: number; embeds: { description: string }[] } };
    expect(refusal.type).toBe(4);
    expect(refusal.data.flags).toBe(MessageFlags.Ephemeral);
    expect(refusal.data.embeds[0]!.description).toMatch(/Run `\/feed list` yourself/);
  });

  botTest('says so when the server has no feeds', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: rl() });
    await h.run(chatInput('feed', 'list'));
    const embed = (h.discord.callbacks()[0]!.body as { data: { embeds: { description: string }[] } }).data.embeds[0]!;
    expect(embed.description).toMatch(/no feeds yet/);
  });
});
