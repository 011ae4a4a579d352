/**
 * /feed list as a panel: under the embeds, "Manage a feed…", a channel select, a state
 * select, Problems only and Previous/Next, at most five rows; filters and pages edit the same
 * message (type 7) from the feed list cache, with no request to the feed API; only the invoker
 * may filter or page the public message.
 */
import { describe, expect } from 'vitest';
import { ChannelType, MessageFlags } from 'discord.js';
import { validateMessagePayload } from '@feedbot/discord-emulator';
import { MEMBER_ID, MEMBER_PERMS, buttonPress, channelSelectPress, chatInput, stringSelectPress } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';

interface Component {
  type: number;
  custom_id?: string;
  label?: string;
  style?: number;
  disabled?: boolean;
  placeholder?: string;
  channel_types?: number[];
  min_values?: number;
  max_values?: number;
  default_values?: { id: string; type: string }[];
  options?: { label: string; value: string; description?: string; default?: boolean }[];
}
interface Body {
  type: number;
  data: { flags?: number; embeds: { title?: string; description?: string; footer?: { text: string }; fields?: { name: string }[] }[]; components: { type: number; components: Component[] }[] };
}

const last = (h: BotHarness): Body => h.discord.callbacks().at(-1)!.body as Body;
/** Requests the feed API received (MockAgent's call history). */
const apiRequests = (h: BotHarness): number => h.agent.getCallHistory()?.calls().length ?? 0;

const NEWS = '1300000000000000002';
const many = Array.from({ length: 57 }, (_, i) => ({
  ...sampleFeeds.feeds[0]!,
  id: i + 1,
  cuenta: `account_${'x'.repeat(20)}${i}`.slice(0, 30),
  canal: i % 2 ? NEWS : sampleFeeds.feeds[0]!.canal,
  estado: i % 3 ? 'activo' : 'pausado',
}));

function serve(h: BotHarness, feeds: unknown[] = many): void {
  h.agent.enableCallHistory();
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl() });
}

describe('/feed list panel', () => {
  botTest.override({ harness: { now: () => Date.parse('2026-11-21T18:30:00.000Z') } });

  botTest('at the largest page: manage, channel, state, Only with a warning + Previous/Next: 4 rows of 5, 10 options of 25', async ({ bot: h }) => {
    serve(h);
    await h.run(chatInput('feed', 'list', { pagina: 2 }));
    const { data } = last(h);
    const rows = data.components;
    expect(rows.length).toBeLessThanOrEqual(5);
    expect(rows.map((r) => r.components.map((c) => c.type))).toEqual([[3], [8], [3], [2, 2, 2]]);
    const [manage, channel, state] = rows.map((r) => r.components[0]!);
    expect(manage!.placeholder).toBe('Manage a feed…');
    expect(manage!.options!.length).toBeLessThanOrEqual(25);
    expect(manage!.options!.map((o) => o.value)).toEqual(data.embeds[0]!.fields!.map((f) => f.name.match(/^#(\d+)/)![1]));
    expect(manage!.options![0]).toMatchObject({ label: expect.stringMatching(/^(⏸️ )?#\d+ · @account_/), description: expect.any(String) });
    expect(channel).toMatchObject({ channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement], min_values: 0, max_values: 1 });
    expect(channel).not.toHaveProperty('default_values');
    expect(state!.options!.map((o) => [o.value, o.default])).toEqual([['*', true], ['activo', false], ['pausado', false]]);
    expect(rows[3]!.components.map((c) => c.label)).toEqual(['Only with a warning', 'Previous', 'Next']);
    const ids = rows.flatMap((r) => r.components.map((c) => c.custom_id!));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(100);
  });

  botTest('the slash options preset the panel; Spanish labels', async ({ bot: h }) => {
    serve(h);
    await h.run(chatInput('feed', 'list', { canal: { channel: { id: NEWS, name: 'news' } }, estado: 'pausado', problemas: true }, { locale: 'es-ES' }));
    const rows = last(h).data.components;
    const channel = rows.find((r) => r.components[0]!.type === 8)!.components[0]!;
    expect(channel.default_values).toEqual([{ id: NEWS, type: 'channel' }]);
    expect(channel.placeholder).toBe('Filtrar por canal…');
    const state = rows[2]!.components[0]!;
    expect(state.options!.find((o) => o.default)).toMatchObject({ value: 'pausado' });
    expect(rows.at(-1)!.components[0]).toMatchObject({ label: 'Solo con algún aviso: sí', style: 1 });
    expect(rows[0]!.components[0]!.placeholder).toBe('Gestionar un feed…');
  });

  botTest('a filter change edits the same message (type 7) with zero requests to the feed API', async ({ bot: h }) => {
    serve(h);
    await h.run(chatInput('feed', 'list'));
    expect(apiRequests(h)).toBe(1);
    const rows = last(h).data.components;

    await h.run(channelSelectPress(rows[1]!.components[0]!.custom_id!, [{ id: NEWS, name: 'news' }]));
    let body = last(h);
    expect(body.type).toBe(7);
    expect(body.data.embeds[0]!.title).toBe('Feeds in #news');
    expect(body.data.components[1]!.components[0]!.default_values).toEqual([{ id: NEWS, type: 'channel' }]);

    await h.run(stringSelectPress(body.data.components[2]!.components[0]!.custom_id!, ['pausado']));
    body = last(h);
    expect(body.type).toBe(7);
    expect(body.data.embeds[0]!.description).toMatch(/state Paused/);
    expect(body.data.embeds[0]!.fields!.length).toBeGreaterThan(0);

    // Only with a warning keeps the other filters (every paused feed is marked "not active").
    await h.run(buttonPress(body.data.components.at(-1)!.components[0]!.custom_id!));
    body = last(h);
    expect(body.type).toBe(7);
    expect(body.data.embeds[0]!.description).toMatch(/state Paused · with a warning/);
    // The channel's name where the guild's channels are known quickly; here (no guild cache) its id.
    expect(body.data.embeds[0]!.title).toMatch(/^Feeds in #(news|1300000000000000002)$/);

    // Clearing the channel select lists every channel again.
    await h.run(channelSelectPress(body.data.components[1]!.components[0]!.custom_id!, []));
    body = last(h);
    expect(body.data.embeds[0]!.title).toBe('Feeds');
    expect(body.data.components[1]!.components[0]).not.toHaveProperty('default_values');

    expect(apiRequests(h)).toBe(1);
    expect(h.discord.callbacks().map((c) => (c.body as Body).type)).toEqual([4, 7, 7, 7, 7]);
  });

  botTest('paging edits in place from the cache; another member is told to run /feed list, in their language', async ({ bot: h }) => {
    serve(h);
    await h.run(chatInput('feed', 'list'));
    const next = last(h).data.components.at(-1)!.components[2]!;
    expect(next.label).toBe('Next');
    await h.run(buttonPress(next.custom_id!));
    expect(last(h).type).toBe(7);
    expect(last(h).data.embeds[0]!.footer!.text).toMatch(/page 2\//);
    expect(apiRequests(h)).toBe(1);

    await h.run(buttonPress(next.custom_id!, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.embeds[0]!.description).toMatch(/Run `\/feed list` yourself/);
    const state = h.discord.callbacks()[0]!.body as Body;
    await h.run(stringSelectPress(state.data.components[2]!.components[0]!.custom_id!, ['activo'], { userId: MEMBER_ID, permissions: MEMBER_PERMS, locale: 'es-ES' }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.embeds[0]!.description).toMatch(/Ejecuta `\/feed lista` tú/);
  });

  botTest('an id the API lists twice is one field, one "Manage a feed…" option and one in the count', async ({ bot: h }) => {
    const [nasa, esa] = sampleFeeds.feeds;
    serve(h, [nasa, esa, { ...nasa, cuenta: 'copy_of_nasa' }, esa]);
    await h.run(chatInput('feed', 'list'));
    // Discord refuses a select whose options repeat a value: the emulator's validators say what it would.
    const { errors } = validateMessagePayload(last(h).data, { requireContent: false });
    expect(errors.issues).toEqual([]);
    const { data } = last(h);
    expect(data.embeds[0]!.fields!.map((f) => f.name.match(/^#(\d+)/)![1])).toEqual(['1', '2']);
    expect(data.embeds[0]!.footer!.text).toMatch(/^2 feeds · /);
    const manage = data.components[0]!.components[0]!;
    expect(manage.custom_id).toMatch(/^feed:manage/);
    expect(manage.options!.map((o) => o.value)).toEqual(['1', '2']);
    expect(manage.options![0]!.label).toMatch(/@nasa$/);
  });

  botTest('a server without feeds gets no panel', async ({ bot: h }) => {
    serve(h, []);
    await h.run(chatInput('feed', 'list'));
    expect(last(h).data.components).toEqual([]);
  });
});
