/**
 * The message command "Feed of this post": the card of the feed that forwarded a post,
 * found from the message's channel and the post link it holds (content, embeds, link buttons)
 * against the latest posts of that channel's feeds, at most 5 feeds read; several → a select;
 * none → a private answer.
 */
import { describe, expect } from 'vitest';
import { ButtonStyle, ComponentType, MessageFlags } from 'discord.js';
import { CHANNEL_ID, messageCommand, stringSelectPress } from '../helpers/discord.js';
import { botTest, rl, type BotHarness } from '../helpers/bot.js';
import { feedOfPostCommand } from '../../commands/feed/of-post.js';

interface Body {
  type: number;
  data: {
    flags?: number;
    embeds: { title?: string; description?: string }[];
    components?: { components: { type: number; custom_id?: string; options?: { label: string; value: string }[] }[] }[];
  };
}
const last = (h: BotHarness): Body => h.discord.callbacks().at(-1)!.body as Body;

const OTHER_CHANNEL = '1300000000000000002';
const postUrl = (code: string) => `https://www.instagram.com/p/${code}/`;
const post = (code: string) => ({
  id: code,
  tipo: 'post',
  caption: '',
  mediaUrl: `https://cdn.example/${code}.jpg`,
  postUrl: postUrl(code),
  publicadoEn: '2026-11-20T18:00:00.000Z',
  publicadoDiscord: '2026-11-20T18:01:00.000Z',
});
const feed = (id: number, canal = CHANNEL_ID, daysAgo = id) => ({
  id,
  cuenta: `acct${id}`,
  canal,
  estado: 'activo',
  tipos: ['post'],
  filtros: 0,
  ultimoPost: new Date(Date.parse('2026-11-21T00:00:00.000Z') - daysAgo * 86_400_000).toISOString(),
});

function serve(h: BotHarness, feeds: ReturnType<typeof feed>[], posts: Record<number, string[]>): void {
  h.agent.enableCallHistory();
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl() });
  for (const [id, codes] of Object.entries(posts)) {
    h.api.intercept({ path: `/v1/feeds/${id}/posts?limite=10`, method: 'GET' }).reply(200, { posts: codes.map(post) }, { headers: rl() });
  }
}
const serveCard = (h: BotHarness, id: number) =>
  h.api.intercept({ path: `/v1/feeds/${id}/posts?limite=1`, method: 'GET' }).reply(200, { posts: [post('LATEST')] }, { headers: rl() });
const postsRead = (h: BotHarness) => h.agent.getCallHistory()!.calls().filter((c) => c.path.includes('/posts')).length;

describe('Feed of this post', () => {
  botTest.override({ harness: { now: () => Date.parse('2026-11-21T18:30:00.000Z') } });

  botTest('is deployed as a guild-only message command named in English and Spanish', () => {
    const body = feedOfPostCommand.data.toJSON();
    expect(body).toMatchObject({ name: 'Feed of this post', type: 3, contexts: [0] });
    expect(body.name_localizations).toMatchObject({ 'es-ES': 'Feed de esta publicación', 'es-419': 'Feed de esta publicación' });
  });

  botTest('one candidate: its card, from the post link in an embed', async ({ bot: h }) => {
    serve(h, [feed(1), feed(2), feed(3, OTHER_CHANNEL)], { 1: ['AAA', 'BBB'], 2: ['CCC'] });
    await h.run(messageCommand('Feed of this post', { embeds: [{ title: 'New post', url: `${postUrl('CCC')}?igsh=x` }] }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, embeds: [{ title: 'Feed #2 · @acct2' }] } });
    // The channel's two feeds, read once each: the card reuses what was just read.
    expect(postsRead(h)).toBe(2);
  });

  botTest('finds the link in a link button, or in the content', async ({ bot: h }) => {
    serve(h, [feed(1)], { 1: ['AAA'] });
    const components = [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, style: ButtonStyle.Link, label: 'Open', url: postUrl('AAA') }] }];
    await h.run(messageCommand('Feed of this post', { components: components as never }));
    expect(last(h).data.embeds[0]!.title).toBe('Feed #1 · @acct1');
  });

  botTest('several candidates: a select to choose, which shows the chosen card; in Spanish', async ({ bot: h }) => {
    serve(h, [feed(1), feed(2)], { 1: ['AAA'], 2: ['AAA'] });
    await h.run(messageCommand('Feed of this post', { content: `Look ${postUrl('AAA')}` }, { locale: 'es-ES' }));
    const ask = last(h);
    expect(ask).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(ask.data.embeds[0]!.description).toBe(`Esta publicación está entre las últimas de 2 feeds en <#${CHANNEL_ID}>: elige uno.`);
    const select = ask.data.components![0]!.components[0]!;
    expect(select.options!.map((o) => o.value)).toEqual(['1', '2']);
    serveCard(h, 2);
    await h.run(stringSelectPress(select.custom_id!, ['2'], { locale: 'es-ES' }, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 7, data: { embeds: [{ title: 'Feed #2 · @acct2' }] } });
  });

  botTest('none: a clear private answer', async ({ bot: h }) => {
    serve(h, [feed(1)], { 1: ['AAA'] });
    await h.run(messageCommand('Feed of this post', { content: postUrl('ZZZ') }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.embeds[0]!.description).toBe(`The feed forwarding into <#${CHANNEL_ID}> does not have this post among its latest posts.`);
  });

  botTest('reads at most 5 feeds, the most recently active, and says so when none matched', async ({ bot: h }) => {
    const feeds = [1, 2, 3, 4, 5, 6, 7].map((id) => feed(id));
    // Feeds 1–5 posted last: only they are read; feed 7 holds the post but is never read.
    serve(h, feeds, { 1: ['A'], 2: ['B'], 3: ['C'], 4: ['D'], 5: ['E'] });
    await h.run(messageCommand('Feed of this post', { content: postUrl('G') }));
    expect(postsRead(h)).toBe(5);
    expect(last(h).data.embeds[0]!.description).toMatch(/^None of the 5 most recently active of the 7 feeds forwarding into/);
  });

  botTest('a message without a link, or in a channel without feeds', async ({ bot: h }) => {
    await h.run(messageCommand('Feed of this post', { content: 'no link here' }));
    expect(last(h).data.embeds[0]!.description).toMatch(/holds no post link/);
    serve(h, [feed(1, OTHER_CHANNEL)], {});
    await h.run(messageCommand('Feed of this post', { content: postUrl('AAA') }, { locale: 'es-419' }));
    expect(last(h).data.embeds[0]!.description).toBe(`Ningún feed de este servidor reenvía a <#${CHANNEL_ID}>.`);
  });
});
