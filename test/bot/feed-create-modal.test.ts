/**
 * /feed create without (all) its options opens a form: a modal of three Labels (a text input for
 * the account, a channel select of text and announcement channels, a checkbox group of kinds),
 * prefilled with the options given; its submit is validated and answered as the options are, and
 * the permission is checked before the form opens and again on submit. Gateway and HTTP projects.
 */
import { describe, expect, vi } from 'vitest';
import { ChannelType, MessageFlags } from 'discord.js';
import { ADMIN_ID, GUILD_ID, MEMBER_ID, MEMBER_PERMS, chatInput, field, modalSubmitted, type ChannelRef } from '../helpers/discord.js';
import { botTest, rl, type BotHarness } from '../helpers/bot.js';
import { accepted } from './forms-kit.js';

const CHANNEL = { id: '1300000000000000009', name: 'space' };
const created = { id: 7, cuenta: 'nasa', canalId: CHANNEL.id, estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };

type Label = { type: number; label: string; description?: string; component: Record<string, unknown> & { type: number } };
type ModalBody = { type: number; data: { custom_id: string; title: string; components: Label[] } };
type MessageBody = { type: number; data: { flags?: number; embeds: { title?: string; description?: string }[] } };

const last = (h: BotHarness) => accepted(h.discord.callbacks().at(-1)!) as unknown as ModalBody & MessageBody;

function expectCreate(h: BotHarness, body: Record<string, unknown>) {
  h.api
    .intercept({ path: '/v1/feeds', method: 'POST', body: (b) => JSON.stringify(JSON.parse(b)) === JSON.stringify(body) })
    .reply(201, created, { headers: rl() });
}

describe('/feed create opens a form', () => {
  botTest('without options: a modal of a text input, a channel select (text, announcement) and a checkbox group, never deferred', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'create', {}));
    expect(h.discord.callbacks()).toHaveLength(1);
    const modal = last(h);
    expect(modal.type).toBe(9);
    expect(modal.data.custom_id).toBe('feed:create');
    expect(modal.data.title).toBe('New feed');
    expect(modal.data.components.map((c) => [c.type, c.label, c.component.type])).toEqual([
      [18, 'Account', 4],
      [18, 'Channel', 8],
      [18, 'Content', 22],
    ]);
    const [account, channel, kinds] = modal.data.components.map((c) => c.component);
    expect(account).toMatchObject({ custom_id: 'cuenta', style: 1, required: true, min_length: 1, max_length: 200 });
    expect(account).not.toHaveProperty('value');
    expect(channel).toMatchObject({ custom_id: 'canal', channel_types: [ChannelType.GuildText, ChannelType.GuildAnnouncement], min_values: 1, max_values: 1 });
    expect(channel).not.toHaveProperty('default_values');
    expect(kinds).toMatchObject({
      custom_id: 'tipos',
      min_values: 1,
      max_values: 3,
      options: [
        { label: 'Posts', value: 'post', default: true },
        { label: 'Reels', value: 'reel', default: true },
        { label: 'Stories', value: 'story', default: true },
      ],
    });
  });

  botTest('in Spanish', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'create', {}, { locale: 'es-ES' }));
    const modal = last(h);
    expect(modal.data.title).toBe('Nuevo feed');
    expect(modal.data.components.map((c) => c.label)).toEqual(['Cuenta', 'Canal', 'Contenido']);
  });

  botTest('with some options: the form, prefilled with what was given', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'create', { cuenta: '@nasa', canal: { channel: CHANNEL } }));
    let [account, channel, kinds] = last(h).data.components.map((c) => c.component);
    expect(account).toMatchObject({ value: '@nasa' });
    expect(channel).toMatchObject({ default_values: [{ type: 'channel', id: CHANNEL.id }] });
    expect((kinds!.options as { default: boolean }[]).map((o) => o.default)).toEqual([true, true, true]);

    await h.run(chatInput('feed', 'create', { tipos: 'reel+story' }));
    [account, channel, kinds] = last(h).data.components.map((c) => c.component);
    expect(account).not.toHaveProperty('value');
    expect((kinds!.options as { value: string; default: boolean }[]).map((o) => [o.value, o.default])).toEqual([
      ['post', false],
      ['reel', true],
      ['story', true],
    ]);
  });

  botTest('with every option it creates at once, as before', async ({ bot: h }) => {
    expectCreate(h, { cuenta: 'nasa', canalId: CHANNEL.id, tipos: ['post'], filtros: [] });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: { channel: CHANNEL }, tipos: 'post' }));
    expect(last(h)).toMatchObject({ type: 4, data: { embeds: [{ title: 'Feed created' }] } });
  });

  botTest('a member without Manage Server nor a feed-manager role is refused before the form opens', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'create', {}, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    const b = last(h);
    expect(b.type).toBe(4);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toBe('You need the **Manage Server** permission to create feeds.');
  });
});

describe("the form's submit", () => {
  const submit = (account: string, kinds: string[], invoker = {}, channels: ChannelRef[] = [CHANNEL]) =>
    modalSubmitted('feed:create', [field.text('cuenta', account), field.channelSelect('canal', channels), field.checkboxGroup('tipos', kinds)], invoker);

  botTest('creates the feed, answers publicly as the command does, and is audited', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    expectCreate(h, { cuenta: 'nasa', canalId: CHANNEL.id, tipos: ['post', 'story'], filtros: [] });
    await h.run(submit('https://www.instagram.com/nasa/', ['story', 'post']));
    const b = last(h);
    expect(b.type).toBe(4);
    expect(b.data.flags ?? 0).toBe(0);
    expect(b.data.embeds[0]).toMatchObject({ title: 'Feed created', description: `Posts from **@nasa** will be forwarded to <#${CHANNEL.id}>.` });
    expect(audit.mock.calls).toEqual([[GUILD_ID, { kind: 'feedCreated', actor: { userId: ADMIN_ID }, feed: { id: 7, cuenta: 'nasa', canalId: CHANNEL.id, tipos: ['post', 'story'] } }, 'en-US']]);
  });

  botTest('in Spanish', async ({ bot: h }) => {
    expectCreate(h, { cuenta: 'nasa', canalId: CHANNEL.id, tipos: ['reel'], filtros: [] });
    await h.run(submit('nasa', ['reel'], { locale: 'es-ES' }));
    expect(last(h).data.embeds[0]!.title).toBe('Feed creado');
  });

  botTest.for([
    ['na sa', 'en-US', /is not a valid account/],
    ['https://www.instagram.com/p/C8xYz12AbCd/', 'en-US', /link to a post or a page of Instagram, not to an account/],
    ['https://twitter.com/nasa', 'es-ES', /no es un enlace de Instagram/],
  ] as const)('refuses the account %j (%s) privately, before any request', async ([account, locale, reason], { bot: h }) => {
    await h.run(submit(account, ['post'], { locale }));
    const b = last(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toMatch(reason);
  });

  botTest('refuses no kind ticked, and a channel of another type, before any request', async ({ bot: h }) => {
    await h.run(submit('nasa', []));
    expect(last(h).data.embeds[0]!.description).toBe('Tick at least one kind of content to forward.');
    await h.run(submit('nasa', ['post'], { locale: 'es-ES' }, [{ id: '1300000000000000010', name: 'voice', type: ChannelType.GuildVoice }]));
    expect(last(h).data.embeds[0]!.description).toBe('Elige el canal de texto o de anuncios al que se reenvían las publicaciones.');
  });

  botTest.for([
    ['without its account field', () => modalSubmitted('feed:create', [field.channelSelect('canal', [CHANNEL]), field.checkboxGroup('tipos', ['post'])])],
    ['without its channel field', () => modalSubmitted('feed:create', [field.text('cuenta', 'nasa'), field.checkboxGroup('tipos', ['post'])])],
    // A string would match kinds by substring: "post+reel" is not a list of kinds.
    ['with its kinds as a string', () => modalSubmitted('feed:create', [field.text('cuenta', 'nasa'), field.channelSelect('canal', [CHANNEL]), field.checkboxGroup('tipos', 'post+reel' as unknown as string[])])],
  ] as const)('a form %s is a user error: nothing sent to the API, one warn line without a stack', async ([, payload], { bot: h }) => {
    await h.run(payload());
    const b = last(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toMatch(/^What Discord sent for this arrived incomplete, so nothing was done\./);
    const lines = h.logs.filter((l) => l.outcome !== undefined);
    expect(lines).toEqual([expect.objectContaining({ outcome: 'malformed_interaction', level: 40 })]);
    expect(lines[0]).not.toHaveProperty('err');
  });

  botTest.for([
    ['of another server', () => Response.json({ id: '1300000000000000555', type: 0, guild_id: '1100000000000000999' })],
    ['Discord does not know', () => Response.json({ code: 10003, message: 'Unknown Channel' }, { status: 404 })],
  ] as const)('refuses a channel %s before any request: Discord is asked whose it is', async ([, answer], { bot: h }) => {
    h.discord.recorder.respond = (call) => (call.method === 'GET' && call.path === '/channels/1300000000000000555' ? answer() : undefined);
    await h.run(submit('nasa', ['post'], {}, [{ id: '1300000000000000555', name: 'theirs' }]));
    const b = last(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toBe("That channel is not one of this server's. Choose a channel of this server.");
  });

  botTest('checks the permission again: a member who lost it meanwhile is refused', async ({ bot: h }) => {
    await h.run(submit('nasa', ['post'], { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    const b = last(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toMatch(/to create feeds\.$/);
  });
});
