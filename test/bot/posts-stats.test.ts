import { describe, expect } from 'vitest';
import { GUILD_ID, buttonPress, chatInput } from '../helpers/discord.js';
import { knowGuild } from './known-guilds.js';
import { botTest, rl, sampleStats, type BotHarness } from '../helpers/bot.js';

type Embed = { title: string; description: string; url?: string; image?: { url: string }; fields: { name: string; value: string; inline?: boolean }[]; timestamp?: string; color: number };
type Body = { type: number; data: { flags?: number; content?: string; embeds: Embed[]; components: { components: { custom_id: string; disabled?: boolean }[] }[] } };
const body = (h: BotHarness, i = 0) => h.discord.callbacks()[i]!.body as Body;

function post(i: number, caption = `Caption ${i}`) {
  const t = Date.parse('2026-11-21T10:00:00.000Z') - i * 3_600_000;
  return {
    id: `p${i}`,
    tipo: i % 3 === 0 ? 'reel' : 'post',
    caption,
    mediaUrl: `https://127.0.0.1:9443/media/p${i}.svg`,
    postUrl: `https://social.example/p/p${i}`,
    publicadoEn: new Date(t).toISOString(),
    publicadoDiscord: new Date(t + 60_000).toISOString(),
  };
}

describe('/feed posts', () => {
  botTest('one embed per post with link, image and both times, each labelled; limite and tipo reach the API', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds/3/posts?limite=2&tipo=post', method: 'GET' }).reply(200, { posts: [post(1), post(2)] }, { headers: rl() });
    await h.run(chatInput('feed', 'posts', { id: 3, limite: 2, tipo: 'post' }));
    const b = body(h);
    expect(b.type).toBe(4);
    expect(b.data.content).toBe('Latest posts of feed #3 (1–2 of 2)');
    expect(b.data.embeds).toHaveLength(2);
    const p = post(1);
    expect(b.data.embeds[0]).toEqual({
      title: 'Post · p1',
      description: 'Caption 1',
      color: 0x5865f2,
      url: p.postUrl,
      image: { url: p.mediaUrl },
      fields: [
        {
          name: 'Forwarded to Discord',
          value: `<t:${Date.parse(p.publicadoDiscord) / 1000}:f> (<t:${Date.parse(p.publicadoDiscord) / 1000}:R>)`,
          inline: true,
        },
        { name: 'Published by the account', value: `<t:${Date.parse(p.publicadoEn) / 1000}:f>`, inline: true },
      ],
      // The embed's own date is the one the posts are ordered by: when they were forwarded.
      timestamp: p.publicadoDiscord,
    });
  });

  botTest('newest forwarded first, the order the shown dates follow, whatever order the API sent', async ({ bot: h }) => {
    // A post published early but forwarded last (the service caught up on it) and two others,
    // sent in the order they were published: the list follows the forwarding times.
    const at = (hhmm: string) => `2026-11-21T${hhmm}:00.000Z`;
    const late = { ...post(1), id: 'late', publicadoEn: at('08:00'), publicadoDiscord: at('10:30') };
    const mid = { ...post(2), id: 'mid', publicadoEn: at('09:50'), publicadoDiscord: at('10:00') };
    const early = { ...post(4), id: 'early', publicadoEn: at('09:00'), publicadoDiscord: at('09:01') };
    h.api.intercept({ path: '/v1/feeds/3/posts?limite=10', method: 'GET' }).reply(200, { posts: [mid, early, late] }, { headers: rl() });
    await h.run(chatInput('feed', 'posts', { id: 3 }, { locale: 'es-ES' }));
    const embeds = body(h).data.embeds;
    expect(embeds.map((e) => e.title.split(' · ')[1])).toEqual(['late', 'mid', 'early']);
    expect(embeds.map((e) => e.timestamp)).toEqual([late, mid, early].map((p) => p.publicadoDiscord));
    expect(embeds[0]!.fields.map((f) => f.name)).toEqual(['Reenviado a Discord', 'Publicado por la cuenta']);
  });

  botTest('defaults limite to 10', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds/3/posts?limite=10', method: 'GET' }).reply(200, { posts: [] }, { headers: rl() });
    await h.run(chatInput('feed', 'posts', { id: 3 }));
    expect(body(h).data.embeds[0]!.description).toBe('Feed #3 has not forwarded any posts yet.');
  });

  botTest('pages 50 long posts: ≤ 10 embeds and ≤ 6000 characters per message, captions cut safely', async ({ bot: h }) => {
    const emoji = '👩‍👩‍👧‍👦';
    const posts = Array.from({ length: 50 }, (_, i) => post(i, `${'word '.repeat(150)}${emoji.repeat(40)}`));
    h.api.intercept({ path: '/v1/feeds/3/posts?limite=50', method: 'GET' }).reply(200, { posts }, { headers: rl() }).times(2);
    await h.run(chatInput('feed', 'posts', { id: 3, limite: 50 }));
    const b = body(h);
    expect(b.data.embeds.length).toBeLessThanOrEqual(10);
    const size = b.data.embeds.reduce((n, e) => n + e.title.length + e.description.length + e.fields.reduce((m, f) => m + f.name.length + f.value.length, 0), 0);
    expect(size).toBeLessThanOrEqual(6000);
    for (const e of b.data.embeds) {
      expect(e.description.endsWith('…')).toBe(true);
      expect(e.description).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone surrogate
    }
    const [prev, next] = b.data.components[0]!.components;
    expect(prev!.disabled).toBe(true);
    await h.run(buttonPress(next!.custom_id));
    const page2 = body(h, 1);
    expect(page2.type).toBe(7);
    expect(page2.data.content).toMatch(/\(\d+–\d+ of 50\)/);
    expect(page2.data.embeds[0]!.title).not.toBe(b.data.embeds[0]!.title);
  });

  botTest('a 404 says the feed does not exist in this server (Spanish)', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds/42/posts?limite=10', method: 'GET' }).reply(404, 'Not Found', { headers: rl() });
    await h.run(chatInput('feed', 'posts', { id: 42 }, { locale: 'es-ES' }));
    expect(body(h).data.embeds[0]!.description).toBe('El feed #42 no existe en este servidor.');
    expect(body(h).data.flags).toBe(64);
  });

  botTest('a post link or media that is not http(s) is left out, not sent to Discord', async ({ bot: h }) => {
    const p = { ...post(1), mediaUrl: 'javascript:alert(1)', postUrl: 'not a url' };
    h.api.intercept({ path: '/v1/feeds/3/posts?limite=10', method: 'GET' }).reply(200, { posts: [p] }, { headers: rl() });
    await h.run(chatInput('feed', 'posts', { id: 3 }));
    const e = body(h).data.embeds[0]!;
    expect(e.url).toBeUndefined();
    expect(e.image).toBeUndefined();
  });
});

describe('/stats', () => {
  const latest = '2026-11-21T09:59:00.000Z';
  const stats = sampleStats({
    feedsActivos: 3,
    feedsPausados: 1,
    postsHoy: 12,
    postsEstaSemana: 80,
    cuentaMasActiva: 'nasa',
    ultimaActividad: latest,
  });
  botTest('shows every field, the latest activity as a timestamp', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, { ...stats, extra: 'ignored' }, { headers: rl() });
    await h.run(chatInput('stats', undefined));
    const ts = Date.parse(latest) / 1000;
    expect(body(h).data.embeds[0]).toEqual({
      title: 'Forwarding statistics',
      color: 0x5865f2,
      fields: [
        { name: 'Server', value: '`1100000000000000001`', inline: true },
        { name: 'Plan', value: 'Server', inline: true },
        { name: 'Active feeds', value: '3', inline: true },
        { name: 'Paused feeds', value: '1', inline: true },
        { name: 'Posts today', value: '12', inline: true },
        { name: 'Posts this week', value: '80', inline: true },
        { name: 'Most active account', value: '@nasa', inline: true },
        { name: 'Latest activity', value: `<t:${ts}:f> (<t:${ts}:R>)`, inline: false },
      ],
    });
  });

  botTest('names the plan in the reader\'s language; a plan it does not know is shown as the API sent it', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, { ...stats, plan: 'gold' }, { headers: rl() });
    await h.run(chatInput('stats', undefined, {}, { locale: 'es-ES' }));
    expect(body(h).data.embeds[0]!.fields[1]).toEqual({ name: 'Plan', value: 'gold', inline: true });
  });

  botTest('names the server when its name is known, not its raw id', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, []);
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, stats, { headers: rl() });
    await h.run(chatInput('stats', undefined));
    expect(body(h).data.embeds[0]!.fields[0]).toEqual({ name: 'Server', value: 'guild 0001', inline: true });
  });

  botTest('in Spanish', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, { ...stats, cuentaMasActiva: null, ultimaActividad: null }, { headers: rl() });
    await h.run(chatInput('stats', undefined, {}, { locale: 'es-ES' }));
    const fields = body(h).data.embeds[0]!.fields;
    expect(fields.map((f) => f.name)).toContain('Publicaciones esta semana');
    expect(fields.find((f) => f.name === 'Plan')!.value).toBe('Servidor');
    expect(fields.at(-1)).toEqual({ name: 'Última actividad', value: 'ninguna', inline: false });
  });

  botTest('a response that does not match the spec is explained with a reference that is also logged', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, { ...stats, feedsActivos: 'three' }, { headers: rl() });
    await h.run(chatInput('stats', undefined));
    const text = body(h).data.embeds[0]!.description;
    const ref = /Reference: `([A-Z0-9]{8})`/.exec(text)?.[1];
    expect(ref).toBeDefined();
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ outcome: 'api_invalid_response', ref, level: 50 });
    expect(text).not.toMatch(/at .*\.ts|Error:/);
  });
});
