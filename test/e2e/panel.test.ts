/**
 * End to end, the feed panel, the card and Feed of this post: the real bot process against the
 * Discord emulator (which validates every message, callback and select as Discord does) and the
 * HTTPS sandbox, over the gateway and over HTTP, in English and Spanish, each language in guilds
 * of its own:
 *  - /feed list is a panel: the channel select, the state select, Problems only and Next edit the
 *    same message (callback type 7) and cost no feed API request (the sandbox's own count).
 *  - "Manage a feed…" → the private card → its Delete → the confirmation → exactly that feed deleted.
 *  - "Feed of this post" on a post a webhook forwarded → that feed's card; on a message whose link
 *    matches no feed's latest posts, or that holds no link, the private explanation.
 *  - /feed posts → "Feed card" → the card.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import { LANGS, StoryStack, TRANSPORTS, actor, answered, inEachLanguage, messageWhen, storyGuild, titled, type StoryGuild } from './story-kit.js';
import { translator, type Lang } from '../../src/i18n/index.js';

/** The message command's name as registered (Discord sends it, whatever the member's language). */
const FEED_OF_POST = translator('en')('cmd.feedOfPost.name');
/** The feed a forwarded post belongs to: its code is the post's id in postUrl (11 letters or digits). */
const POST_CODE: Record<Lang, string> = { en: 'PanelPostEn', es: 'PanelPostEs' };
/** A forwarding service's webhook, posting into the channel as the service does. */
const WEBHOOK = { id: '1400000000000000077', name: 'Instagram forwarder' };

type Component = { type: number; custom_id?: string; placeholder?: string; default_values?: { id: string }[]; options?: { value: string; default?: boolean }[] };
const components = (m: APIMessage): Component[] => (m.components ?? []).flatMap((row) => ('components' in row ? (row.components as Component[]) : []));
/** The feed ids a list page shows (its fields are `#id · @account`). */
const shownIds = (m: APIMessage): number[] => (m.embeds[0]?.fields ?? []).map((f) => Number(/^#(\d+)/.exec(f.name)?.[1]));

describe.each(TRANSPORTS)('the feed panel, the card and Feed of this post [%s]', (transport) => {
  const guild = (n: number, lang: Lang, name: string) => storyGuild(90 + n * 2 + (lang === 'es' ? 1 : 0), lang, `${name} (${lang})`);
  const byStory = (lang: Lang) => ({ filters: guild(0, lang, 'Panel filters'), manage: guild(1, lang, 'Panel manage'), post: guild(2, lang, 'Feed of this post') });
  const guilds = { en: byStory('en'), es: byStory('es') };
  let s: StoryStack;

  beforeAll(async () => {
    s = await StoryStack.start(transport, LANGS.flatMap((l) => Object.values(guilds[l])));
    for (const l of LANGS) for (const g of Object.values(guilds[l])) expect((await s.setKey(g, await s.newKey(g))).embeds[0]!.title).toBe(g.t('apikey.set.title'));
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  }, 30_000);

  async function createFeed(g: StoryGuild, cuenta: string, channel: string): Promise<number> {
    return (await s.sandbox.admin.createFeed(g.id, { cuenta, canalId: channel, tipos: ['post'], filtros: [] })).id;
  }

  it('/feed list: channel, state, Problems only and Next edit the same message with no upstream request', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].filters;
      for (const cuenta of ['nasa', 'natgeo', 'bbcmundo']) await createFeed(g, cuenta, g.channels.news);
      const active = [await createFeed(g, 'esa.space', g.channels.media), await createFeed(g, 'jaxa', g.channels.media)];
      const paused: number[] = [];
      for (let i = 1; i <= 12; i++) {
        const id = await createFeed(g, `paused_${i}`, g.channels.media);
        await s.sandbox.admin.pauseFeed(g.id, id);
        paused.push(id);
      }

      const panel = await s.command(g, 'member', 'feed', 'list');
      expect(panel.flags ?? 0).toBe(0);
      expect(shownIds(panel)).toHaveLength(10);
      expect(panel.components!.length).toBeLessThanOrEqual(5);
      expect(components(panel).map((c) => c.type).slice(0, 3)).toEqual([3, 8, 3]);
      // The panel's own request is answered: from here on, every filter and page is the cache's.
      const before = s.upstreamRequests(g);
      expect(before, 'the key check and the typed /feed list reached the sandbox').toBeGreaterThan(0);
      const publicIds = () => s.emulator.messages({ channelId: g.channels.news }).filter((m) => ((m.flags ?? 0) & 64) === 0).map((m) => m.id);
      const shown = publicIds();

      const byChannel = await s.pickFor(g, 'member', panel, g.t('panel.channel.placeholder'), [g.channels.media], titled(g.t('list.title.channel', { channel: 'media' })));
      expect(byChannel.ack).toBe(7);
      expect(byChannel.message.id).toBe(panel.id);
      expect(shownIds(byChannel.message).every((id) => [...active, ...paused].includes(id))).toBe(true);
      expect(components(byChannel.message).find((c) => c.type === 8)!.default_values).toEqual([expect.objectContaining({ id: g.channels.media })]);

      const stateText = g.t('health.list.filter.estado', { estado: g.t('state.pausado') });
      const byState = await s.pickFor(g, 'member', byChannel.message, g.t('panel.state.placeholder'), ['pausado'], (m) => (m.embeds[0]?.description ?? '').includes(stateText));
      expect(byState.ack).toBe(7);
      expect(byState.message.id).toBe(panel.id);
      expect(byState.message.embeds[0]!.title).toBe(g.t('list.title.channel', { channel: 'media' }));
      const firstPage = shownIds(byState.message);
      expect(firstPage).toHaveLength(10);
      expect(firstPage.every((id) => paused.includes(id))).toBe(true);

      const problemsText = g.t('health.list.filter.problemas');
      const problems = await s.pressAnswer(g, 'member', byState.message, g.t('panel.problems.off'), (m) => (m.embeds[0]?.description ?? '').includes(problemsText));
      expect(problems.ack).toBe(7);
      expect(problems.message.id).toBe(panel.id);
      expect(problems.message.embeds[0]!.description).toContain(stateText);
      expect(shownIds(problems.message)).toEqual(firstPage);

      const next = await s.pressAnswer(g, 'member', problems.message, g.t('button.next'), (m) => shownIds(m).length === 2);
      expect(next.ack).toBe(7);
      expect(next.message.id).toBe(panel.id);
      expect(next.message.embeds[0]!.description).toContain(problemsText);
      expect([...firstPage, ...shownIds(next.message)].sort((a, b) => a - b)).toEqual(paused);

      // Someone else's pick is refused privately and leaves the panel as it was.
      const notYours = await s.pickFor(g, 'crew', next.message, g.t('panel.channel.placeholder'), [g.channels.news], (m) => m.embeds[0]?.description === g.t('panel.notYours'));
      expect(notYours.message.flags).toBe(64);
      expect(notYours.message.id).not.toBe(panel.id);
      expect(s.emulator.message(panel.id)!.embeds).toEqual(next.message.embeds);

      expect(s.upstreamRequests(g), 'feed API requests made by the filters and the page turn').toBe(before);
      // Nothing new was posted either: the four answers were the panel itself, edited.
      expect(publicIds()).toEqual(shown);
      // The count sees a request when there is one: a typed /feed list asks the API afresh, once.
      await s.command(g, 'member', 'feed', 'list');
      expect(s.upstreamRequests(g), 'a typed /feed list').toBe(before + 1);
    });
    s.expectNoViolations();
  }, 90_000);

  it('"Manage a feed…" → the card → Delete → the confirmation: exactly that feed is deleted', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].manage;
      const ids = [await createFeed(g, 'nasa', g.channels.news), await createFeed(g, 'natgeo', g.channels.news), await createFeed(g, 'esa.space', g.channels.media)];
      const doomed = ids[1]!;
      const panel = await s.command(g, 'admin', 'feed', 'list');

      const card = await s.pickFor(g, 'admin', panel, g.t('panel.manage.placeholder'), [String(doomed)], titled(g.t('card.title', { id: doomed, cuenta: 'natgeo' })));
      expect(card.message.flags).toBe(64);
      expect(card.message.id).not.toBe(panel.id);
      const fields = card.message.embeds[0]!.fields!;
      expect(fields.find((f) => f.name === g.t('card.field.channel'))!.value).toBe(`<#${g.channels.news}>`);
      expect(fields.find((f) => f.name === g.t('card.field.latest'))!.value).toBe(g.t('card.latest.none'));

      const confirmation = await s.pressFor(g, 'admin', card.message, g.t('card.button.delete'), titled(g.t('delete.confirm.title', { id: doomed })));
      expect(confirmation.flags).toBe(64);
      const done = await s.pressAnswer(g, 'admin', confirmation, g.t('delete.button.confirm'), titled(g.t('delete.done.title')));
      expect(done.ack).toBe(7);
      expect((await s.sandbox.admin.listFeeds(g.id)).map((f) => f.id).sort((a, b) => a - b)).toEqual(ids.filter((id) => id !== doomed));
    });
    s.expectNoViolations();
    s.expectNoSecretLeaked();
  }, 90_000);

  it('"Feed of this post" on a forwarded post gives its feed\'s card; on other messages, the private explanation', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].post;
      const nasa = await createFeed(g, 'nasa', g.channels.news);
      for (const cuenta of ['natgeo', 'bbcmundo']) await createFeed(g, cuenta, g.channels.news);
      await s.sandbox.admin.addPost(g.id, nasa, { code: POST_CODE[lang], tipo: 'post' });
      const postUrl = `${s.sandbox.url}/p/${POST_CODE[lang]}`;

      // The service forwards the post as a webhook would: an embed linking it (a share id in the query).
      const forwarded = s.emulator.postMessage({ channelId: g.channels.news, author: { webhook: WEBHOOK }, embeds: [{ title: 'New post from @nasa', url: `${postUrl}?igsh=${lang}` }] });
      const run = (message: APIMessage) => s.emulator.runMessageCommand({ commandName: FEED_OF_POST, messageId: message.id, ...actor(g, 'member') });
      const card = await messageWhen(s.emulator, run(forwarded).id, titled(g.t('card.title', { id: nasa, cuenta: 'nasa' })), { what: "the forwarded post's feed card" });
      expect(card.flags).toBe(64);
      expect(card.embeds[0]!.image?.url).toBe(`${s.sandbox.url}/media/${POST_CODE[lang]}.png`);
      expect(card.embeds[0]!.fields!.find((f) => f.name === g.t('card.field.latest'))!.value).toContain(postUrl);

      // A member's message linking a post no feed of the channel forwarded.
      const other = s.emulator.postMessage({ channelId: g.channels.news, author: { id: actor(g, 'member').userId!, username: 'max_member' }, content: `look: ${s.sandbox.url}/p/Unknown0000` });
      const none = await messageWhen(s.emulator, run(other).id, answered, { what: 'the explanation' });
      expect(none.flags).toBe(64);
      expect(none.embeds[0]!.description).toBe(g.t('feedOfPost.none', { count: 3, channel: g.channels.news }));

      const chat = s.emulator.postMessage({ channelId: g.channels.news, author: { id: actor(g, 'member').userId!, username: 'max_member' }, content: 'nice one!' });
      const noLink = await messageWhen(s.emulator, run(chat).id, answered, { what: 'the explanation' });
      expect(noLink.flags).toBe(64);
      expect(noLink.embeds[0]!.description).toBe(g.t('feedOfPost.noLink'));
    });
    s.expectNoViolations();
  }, 90_000);

  it('/feed posts → "Feed card" → the card', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].post;
      const nasa = (await s.sandbox.admin.listFeeds(g.id)).find((f) => f.cuenta === 'nasa')?.id ?? (await createFeed(g, 'nasa', g.channels.news));
      const posts = await s.command(g, 'member', 'feed', 'posts', { id: nasa });
      expect(posts.flags ?? 0).toBe(0);
      const card = await s.pressAnswer(g, 'member', posts, g.t('card.button.open'), titled(g.t('card.title', { id: nasa, cuenta: 'nasa' })));
      expect(card.message.flags).toBe(64);
      expect(card.message.id).not.toBe(posts.id);
      expect(card.message.embeds[0]!.fields!.find((f) => f.name === g.t('card.field.account'))!.value).toContain('@nasa');
    });
    s.expectNoViolations();
    s.expectNoSecretLeaked();
  }, 60_000);
});
