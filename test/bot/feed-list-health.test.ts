/**
 * /feed list marks feeds in words and an icon (channel deleted, no post for longer than the
 * server's threshold, not active), filters by estado / problemas / cuenta with canal and paging,
 * explains an empty answer, and reports a deleted channel it notices to the audit trail, once.
 */
import { describe, expect, vi } from 'vitest';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { GUILD_ID, autocomplete, buttonPress, chatInput, type OptionValue } from '../helpers/discord.js';
import { botTest, rl, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const DAY = 86_400_000;
const HERE = '1300000000000000001';
const GONE = '1300000000000000009';
const QUIET = '1300000000000000008';
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();

const feed = (id: number, cuenta: string, canal: string, estado: string, ultimoPost: string | null): FeedListItem => ({
  id,
  cuenta,
  canal,
  estado,
  tipos: ['post'],
  filtros: 0,
  ultimoPost,
});
const FEEDS = [
  feed(1, 'nasa', HERE, 'activo', ago(1)),
  feed(2, 'esa', HERE, 'pausado', null),
  feed(3, 'jpl.nasa', GONE, 'activo', ago(1)),
  feed(4, 'spacex', HERE, 'activo', ago(10)),
];

type Embed = { title: string; description?: string; fields?: { name: string; value: string }[]; footer: { text: string } };
type Body = { type: number; data: { embeds: Embed[]; components?: { components: { custom_id: string }[] }[]; choices?: unknown[] } };
const lastBody = (h: BotHarness) => h.discord.callbacks().at(-1)!.body as Body;
const lastEmbed = (h: BotHarness) => lastBody(h).data.embeds[0]!;
/** Each listed feed's name with its warnings line (the fourth), or null when it has none. */
const marks = (e: Embed) => Object.fromEntries((e.fields ?? []).map((f) => [f.name, f.value.split('\n')[3] ?? null]));
const channelLookups = (h: BotHarness) => h.discord.calls.filter((c) => c.path === `/guilds/${GUILD_ID}/channels`).length;

function serveFeeds(h: BotHarness, feeds: readonly FeedListItem[] = FEEDS, times = 1) {
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl() }).times(times);
}
/** HTTP mode's channel list: Discord's REST answer for the guild. */
function restChannels(h: BotHarness, ids: readonly string[]) {
  h.discord.recorder.respond = (call) => (call.path === `/guilds/${GUILD_ID}/channels` ? Response.json(ids.map((id) => ({ id, name: `c-${id.slice(-2)}`, type: 0 }))) : undefined);
}
const list = (h: BotHarness, options: Record<string, OptionValue> = {}, locale?: string) => h.run(chatInput('feed', 'list', options, locale ? { locale } : {}));

botTest.override({ harness: { now: () => NOW } });

describe('/feed list health marks', () => {
  botTest('over the gateway: the deleted channel from the cache, with no request to Discord', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    serveFeeds(h);
    await list(h);
    expect(marks(lastEmbed(h))).toEqual({
      '#1 · @nasa': null,
      '#2 · @esa': '⏸️ Not active',
      '#3 · @jpl.nasa': '⚠️ Channel deleted',
      '#4 · @spacex': '⏳ No post for over 7 days',
    });
    expect(channelLookups(h)).toBe(0);
  });

  botTest('in HTTP mode: the deleted channel from one REST lookup of the channels', async ({ bot: h }) => {
    restChannels(h, [HERE]);
    serveFeeds(h);
    await list(h);
    expect(marks(lastEmbed(h))['#3 · @jpl.nasa']).toBe('⚠️ Channel deleted');
    expect(channelLookups(h)).toBe(1);
  });

  botTest('no channel mark when the channel list cannot be had; the others still', async ({ bot: h }) => {
    h.discord.recorder.respond = (call) => (call.path.endsWith('/channels') ? Response.json({ message: 'Missing Access', code: 50001 }, { status: 403 }) : undefined);
    serveFeeds(h);
    await list(h);
    expect(marks(lastEmbed(h))).toEqual({ '#1 · @nasa': null, '#2 · @esa': '⏸️ Not active', '#3 · @jpl.nasa': null, '#4 · @spacex': '⏳ No post for over 7 days' });
  });

  botTest("stale counts from ultimoPost against the server's threshold", async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE, GONE]);
    serveFeeds(h, FEEDS, 2);
    await h.settings.update(GUILD_ID, (s) => ({ ...s, staleAfterDays: 14 }));
    await list(h);
    expect(marks(lastEmbed(h))['#4 · @spacex']).toBeNull();
    await h.settings.update(GUILD_ID, (s) => ({ ...s, staleAfterDays: 1 }));
    await list(h);
    // A day and a bit ago is over one day; exactly a day ago would not be.
    expect(marks(lastEmbed(h))).toMatchObject({ '#1 · @nasa': null, '#4 · @spacex': '⏳ No post for over 1 day' });
  });

  botTest('in Spanish', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    serveFeeds(h);
    await list(h, {}, 'es-ES');
    expect(marks(lastEmbed(h))).toEqual({
      '#1 · @nasa': null,
      '#2 · @esa': '⏸️ No activo',
      '#3 · @jpl.nasa': '⚠️ Canal eliminado',
      '#4 · @spacex': '⏳ Sin publicaciones desde hace más de 7 días',
    });
  });
});

describe('/feed list filters', () => {
  botTest.for([
    ['estado by API value', { estado: 'pausado' }, ['#2 · @esa'], '1 feed matches: state Paused'],
    ['estado by label, and unknown states', { estado: 'Active' }, ['#1 · @nasa', '#3 · @jpl.nasa', '#4 · @spacex'], '3 feeds match: state Active'],
    ['problemas', { problemas: true }, ['#2 · @esa', '#3 · @jpl.nasa', '#4 · @spacex'], '3 feeds match: with a warning'],
    ['problemas false filters nothing', { problemas: false }, ['#1 · @nasa', '#2 · @esa', '#3 · @jpl.nasa', '#4 · @spacex'], undefined],
    ['cuenta, as @name, any case', { cuenta: '@NASA' }, ['#1 · @nasa', '#3 · @jpl.nasa'], '2 feeds match: account contains `nasa`'],
    ['canal and problemas', { canal: { channel: { id: HERE, name: 'space' } }, problemas: true }, ['#2 · @esa', '#4 · @spacex'], '2 feeds match: with a warning'],
    ['cuenta, estado and problemas', { cuenta: 'nasa', estado: 'activo', problemas: true }, ['#3 · @jpl.nasa'], '1 feed matches: account contains `nasa` · state Active · with a warning'],
  ] as const)('%s', async ([, options, names, summary], { bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    serveFeeds(h);
    await list(h, options as Record<string, OptionValue>);
    const embed = lastEmbed(h);
    expect(embed.fields!.map((f) => f.name)).toEqual(names);
    expect(embed.description).toBe(summary);
    expect(embed.footer.text).toBe('4 feeds · Server plan · page 1/1');
  });

  botTest('an empty answer says which filter matched nothing, in English and Spanish', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    serveFeeds(h, FEEDS, 4);
    await list(h, { estado: 'borrador' });
    expect(lastEmbed(h).description).toBe('No feed is in state `borrador`.');
    await list(h, { canal: { channel: { id: HERE, name: 'space' } }, cuenta: 'jpl' });
    expect(lastEmbed(h)).toMatchObject({
      title: 'Feeds in #space',
      description: 'No feed follows an account whose name contains `jpl`. Without that filter, the others match 3 feeds.',
    });
    await list(h, { cuenta: 'nasa', problemas: true, estado: 'pausado' }, 'es-ES');
    expect(lastEmbed(h).description).toBe('Ningún feed está en estado En pausa. Sin ese filtro, los demás coinciden con 1 feed.');
    await list(h, { canal: { channel: { id: QUIET, name: 'quiet' } } });
    expect(lastEmbed(h).description).toBe(`No feed forwards into <#${QUIET}>.`);
  });

  botTest('says so when no feed has a warning', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    serveFeeds(h, [FEEDS[0]!]);
    await list(h, { problemas: true }, 'es-ES');
    expect(lastEmbed(h).description).toBe('Ningún feed tiene avisos: todos parecen estar bien.');
  });

  botTest('refuses a state it could not carry to the next page, before calling the API', async ({ bot: h }) => {
    await list(h, { estado: 'en revisión' });
    expect(lastEmbed(h).description).toMatch(/^`en revisión` is not a state the list can filter on/);
    await list(h, { cuenta: 'no spaces' }, 'es-ES');
    expect(lastEmbed(h).description).toMatch(/^`no spaces` no es una cuenta válida/);
  });

  botTest('page buttons keep every filter, within 100 characters', async ({ bot: h }) => {
    const many = Array.from({ length: 25 }, (_, i) => feed(10 + i, `a_${'x'.repeat(27)}`.slice(0, 28) + (i % 2), HERE, i % 5 ? 'en_revision_larga_x' : 'activo', ago(1)));
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    serveFeeds(h, many);
    const cuenta = `a_${'x'.repeat(26)}`; // 28 characters, in every account
    await list(h, { canal: { channel: { id: HERE, name: 'space' } }, estado: 'en_revision_larga_x', problemas: true, cuenta });
    const first = lastBody(h).data;
    expect(first.embeds[0]!.footer.text).toBe('25 feeds · Server plan · page 1/2');
    expect(first.embeds[0]!.fields).toHaveLength(10);
    const next = first.components!.at(-1)!.components[2]!.custom_id; // Only with a warning, Previous, Next
    expect(next.length).toBeLessThanOrEqual(100);

    await h.run(buttonPress(next));
    const second = lastBody(h);
    expect(second.type).toBe(7);
    expect(second.data.embeds[0]!.footer.text).toBe('25 feeds · Server plan · page 2/2');
    expect(second.data.embeds[0]!.fields).toHaveLength(10);
    expect(second.data.embeds[0]!.description).toBe(`20 feeds match: account contains \`${cuenta}\` · state \`en_revision_larga_x\` · with a warning`);
  });

  botTest('estado suggests the known states and those of the cached list, in the user language', async ({ bot: h }) => {
    serveFeeds(h, [feed(1, 'nasa', HERE, 'en_revision', null)]);
    await list(h);
    await h.run(autocomplete('feed', 'list', { estado: '' }, 'estado', { locale: 'es-ES' }));
    expect(lastBody(h).data.choices).toEqual([
      { name: 'Activo (activo)', value: 'activo' },
      { name: 'En pausa (pausado)', value: 'pausado' },
      { name: 'en_revision', value: 'en_revision' },
    ]);
  });
});

describe('a deleted channel noticed by /feed list', () => {
  botTest('is reported to the audit trail once, with the feeds that pointed to it', async ({ bot: h }) => {
    const record = vi.spyOn(h.audit, 'record');
    const twoGone = [...FEEDS, feed(5, 'nasa_hubble', GONE, 'pausado', null)];
    restChannels(h, [HERE]);
    serveFeeds(h, twoGone, 2);
    await list(h);
    await list(h, { problemas: true });
    const deleted = record.mock.calls.filter(([, event]) => event.kind === 'channelDeleted');
    expect(deleted).toEqual([
      [
        GUILD_ID,
        {
          kind: 'channelDeleted',
          channelId: GONE,
          feeds: [
            { id: 3, cuenta: 'jpl.nasa', canalId: GONE, tipos: ['post'] },
            { id: 5, cuenta: 'nasa_hubble', canalId: GONE, tipos: ['post'] },
          ],
        },
        'en-US',
      ],
    ]);
    expect((await h.settings.get(GUILD_ID)).reportedDeletedChannels).toEqual([GONE]);
  });

  botTest('is not reported when the channel list is unknown', async ({ bot: h }) => {
    const record = vi.spyOn(h.audit, 'record');
    serveFeeds(h);
    await list(h);
    expect(record.mock.calls.filter(([, event]) => event.kind === 'channelDeleted')).toEqual([]);
    expect((await h.settings.get(GUILD_ID)).reportedDeletedChannels).toEqual([]);
  });
});
