/**
 * The feed card: private, one embed (account linked to its profile, channel, state,
 * kinds, filters, health, latest post with its image) with Posts and Delete; reached from the
 * list's "Manage a feed…" and from /feed posts. Delete asks today's confirmation with today's
 * checks, and deletes exactly that feed.
 */
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { MEMBER_ID, MEMBER_PERMS, buttonPress, chatInput, stringSelectPress } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';

interface Body {
  type: number;
  data: {
    flags?: number;
    content?: string;
    embeds: { title?: string; url?: string; description?: string; image?: { url: string }; fields?: { name: string; value: string }[] }[];
    components: { components: { type: number; custom_id?: string; label?: string }[] }[];
  };
}
const last = (h: BotHarness): Body => h.discord.callbacks().at(-1)!.body as Body;
const buttonsOf = (b: Body) => b.data.components.flatMap((r) => r.components);

const latest = {
  id: 'C1',
  tipo: 'reel',
  caption: 'hello',
  mediaUrl: 'https://cdn.example/c1.jpg',
  postUrl: 'https://www.instagram.com/reel/C1/',
  publicadoEn: '2026-11-20T18:00:00.000Z',
  publicadoDiscord: '2026-11-20T18:30:00.000Z',
};

function serveList(h: BotHarness): void {
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
}
function serveLatest(h: BotHarness, id: number): void {
  h.api.intercept({ path: `/v1/feeds/${id}/posts?limite=1`, method: 'GET' }).reply(200, { posts: [latest] }, { headers: rl() });
}

/** /feed list, then "Manage a feed…" → feed `id`'s card (the list from the cache, one posts request). */
async function openCard(h: BotHarness, id: number, locale = 'en-US'): Promise<Body> {
  serveList(h);
  await h.run(chatInput('feed', 'list', {}, { locale }));
  const manage = (h.discord.callbacks().at(-1)!.body as Body).data.components[0]!.components[0]!;
  serveLatest(h, id);
  await h.run(stringSelectPress(manage.custom_id!, [String(id)], { locale }));
  return last(h);
}

describe('the feed card', () => {
  botTest.override({ harness: { now: () => Date.parse('2026-11-21T18:30:00.000Z') } });

  botTest('"Manage a feed…" opens the card privately: account linked, health, latest post and its image, Posts and Delete', async ({ bot: h }) => {
    const card = await openCard(h, 1);
    expect(card.type).toBe(4);
    expect(card.data.flags).toBe(MessageFlags.Ephemeral);
    const [embed] = card.data.embeds;
    expect(embed).toMatchObject({ title: 'Feed #1 · @nasa', url: 'https://www.instagram.com/nasa/', image: { url: latest.mediaUrl } });
    expect(embed!.fields!.map((f) => [f.name, f.value])).toEqual([
      ['Account', '[@nasa](https://www.instagram.com/nasa/)'],
      ['Channel', '<#1300000000000000001>'],
      ['State', 'Active'],
      ['Content', 'Posts + Reels'],
      ['Filters', '0'],
      ['Health', 'No problem noticed'],
      // The latest post is the last one forwarded: its forwarding time, not the time the account published it.
      ['Latest post', `Reel · forwarded <t:${Date.parse(latest.publicadoDiscord) / 1000}:R>\n[Open the post](${latest.postUrl})`],
    ]);
    expect(buttonsOf(card).map((b) => b.label)).toEqual(['Posts', 'Delete']);
  });

  botTest('the list and the card give a feed the same latest post: the time it was forwarded, in both languages', async ({ bot: h }) => {
    for (const [locale, label, word] of [['en-US', 'Latest post', 'forwarded'], ['es-ES', 'Última publicación', 'reenviada']] as const) {
      const card = await openCard(h, 1, locale);
      const list = h.discord.callbacks().at(-2)!.body as Body;
      const line = list.data.embeds[0]!.fields!.find((f) => f.name === '#1 · @nasa')!.value.split('\n').find((l) => l.startsWith(label))!;
      const onCard = card.data.embeds[0]!.fields!.find((f) => f.name === label)!.value.split('\n')[0]!;
      // The sample feed's ultimoPost is its latest post's publicadoDiscord; it was published half an hour before.
      const forwarded = `${word} <t:${Date.parse(latest.publicadoDiscord) / 1000}:R>`;
      expect(line).toBe(`${label}: ${forwarded}`);
      expect(onCard).toMatch(new RegExp(`· ${forwarded}$`));
      expect(onCard).not.toContain(String(Date.parse(latest.publicadoEn) / 1000));
    }
  });

  botTest('in Spanish, with the health marks of a paused feed', async ({ bot: h }) => {
    const card = await openCard(h, 2, 'es-ES');
    const fields = card.data.embeds[0]!.fields!;
    expect(fields.find((f) => f.name === 'Estado de salud')!.value).toMatch(/⏸️/);
    expect(buttonsOf(card).map((b) => b.label)).toEqual(['Publicaciones', 'Eliminar']);
  });

  botTest("the card's Delete asks today's confirmation and deletes exactly that feed", async ({ bot: h }) => {
    const card = await openCard(h, 2);
    const del = buttonsOf(card).find((b) => b.label === 'Delete')!;
    await h.run(buttonPress(del.custom_id!, {}, MessageFlags.Ephemeral));
    const ask = last(h);
    expect(ask).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(ask.data.embeds[0]!.title).toBe('Delete feed #2?');
    const confirm = buttonsOf(ask).find((b) => b.label === 'Delete')!;
    // Only DELETE /feeds/2 is answered: a request for any other feed would fail the test.
    h.api.intercept({ path: '/v1/feeds/2', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 2 eliminado' }, { headers: rl() });
    await h.run(buttonPress(confirm.custom_id!, {}, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 7, data: { embeds: [{ title: 'Feed deleted', description: 'Feed #2 was deleted.' }], components: [] } });
  });

  botTest('Delete needs Manage Server or a feed-manager role, as /feed delete', async ({ bot: h }) => {
    const card = await openCard(h, 1);
    const del = buttonsOf(card).find((b) => b.label === 'Delete')!;
    await h.run(buttonPress(del.custom_id!, { userId: MEMBER_ID, permissions: MEMBER_PERMS }, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.embeds[0]!.description).toMatch(/Manage Server/);
  });

  botTest('Posts shows the feed\'s posts privately; /feed posts offers the card', async ({ bot: h }) => {
    const card = await openCard(h, 1);
    h.api.intercept({ path: '/v1/feeds/1/posts?limite=10', method: 'GET' }).reply(200, { posts: [latest] }, { headers: rl() });
    await h.run(buttonPress(buttonsOf(card).find((b) => b.label === 'Posts')!.custom_id!, {}, MessageFlags.Ephemeral));
    const posts = last(h);
    expect(posts).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, content: 'Latest posts of feed #1 (1–1 of 1)' } });
    const open = buttonsOf(posts).find((b) => b.label === 'Feed card')!;
    serveLatest(h, 1);
    await h.run(buttonPress(open.custom_id!));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, embeds: [{ title: 'Feed #1 · @nasa' }] } });
  });

  botTest('a card of a feed that is gone says so', async ({ bot: h }) => {
    serveList(h);
    await h.run(chatInput('feed', 'list'));
    const manage = last(h).data.components[0]!.components[0]!;
    // The option is forged: the list has no feed 9. A miss in the cached list asks the API once
    // more (a feed created outside the bot since the list was cached would be there).
    serveList(h);
    await h.run(stringSelectPress(manage.custom_id!, ['9']));
    expect(h.agent.pendingInterceptors().filter((i) => i.path === '/v1/feeds'), 'the second list was asked').toHaveLength(0);
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, embeds: [{ description: 'Feed #9 does not exist in this server.' }] } });
  });
});
