import { describe, expect, vi } from 'vitest';
import { MessageFlags } from 'discord.js';
import { ADMINISTRATOR_PERMS, ADMIN_ID, GUILD_ID, MEMBER_ID, MEMBER_PERMS, autocomplete, buttonPress, chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';

type Body = { type: number; data: { flags?: number; content?: string; embeds: { title?: string; description?: string; fields?: { name: string; value: string }[] }[]; components: { components: { custom_id: string; label: string; style: number }[] }[]; choices?: { name: string; value: number }[] } };
const body = (h: BotHarness, i = 0) => h.discord.callbacks()[i]!.body as Body;

const created = { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };
const channel = { channel: { id: '1300000000000000009', name: 'space' } };

describe('/feed create', () => {
  botTest.for([
    ['nasa', 'nasa'],
    ['@nasa', 'nasa'],
    ['https://www.instagram.com/nasa/?hl=es', 'nasa'],
    ['instagram.com/nasa', 'nasa'],
    ['https://m.instagram.com/nasa', 'nasa'],
    ['https://www.instagram.com/stories/nasa/3412345678901234567/', 'nasa'],
  ] as const)('accepts %s and sends cuenta=%s with filtros []', async ([input, cuenta], { bot: h }) => {
    h.api
      .intercept({
        path: '/v1/feeds',
        method: 'POST',
        body: (b) => {
          const parsed = JSON.parse(b) as Record<string, unknown>;
          return JSON.stringify(parsed) === JSON.stringify({ cuenta, canalId: '1300000000000000009', tipos: ['post', 'story'], filtros: [] });
        },
      })
      .reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: input, canal: channel, tipos: 'post+story' }));
    const b = body(h);
    expect(b.type).toBe(4);
    expect(b.data.flags ?? 0).toBe(0);
    expect(b.data.embeds[0]).toEqual({
      title: 'Feed created',
      color: 0x57f287,
      description: 'Posts from **@nasa** will be forwarded to <#1300000000000000009>.',
      fields: [
        { name: 'Feed id', value: '#7', inline: true },
        { name: 'State', value: 'Active', inline: true },
        { name: 'Content', value: 'Posts + Stories', inline: true },
        { name: 'Created', value: `<t:${Date.parse(created.creado) / 1000}:f>`, inline: true },
      ],
      timestamp: '2026-11-21T10:00:00.000Z',
    });
  });

  botTest.for(['na sa', '.nasa', 'a'.repeat(31), 'na..sa'])(
    'refuses the account %j before any request',
    async (input, { bot: h }) => {
      await h.run(chatInput('feed', 'create', { cuenta: input, canal: channel, tipos: 'post' }));
      const b = body(h);
      expect(b.data.flags).toBe(MessageFlags.Ephemeral);
      expect(b.data.embeds[0]!.description).toMatch(/is not a valid account/);
    },
  );

  botTest.for([
    ['https://www.instagram.com/p/C8xYz12AbCd/', /link to a post or a page of Instagram, not to an account/],
    ['https://www.instagram.com/reel/C8xYz12AbCd/?igsh=abc', /link to a post or a page of Instagram, not to an account/],
    ['instagram.com/explore/tags/nasa', /link to a post or a page of Instagram, not to an account/],
    ['https://www.instagram.com/nasa/p/C8xYz12AbCd', /link to a post or a page of Instagram, not to an account/],
    ['https://example.com/some/thing', /not an Instagram link/],
    ['https://twitter.com/nasa', /not an Instagram link/],
    ['https://example.com/', /not an Instagram link/],
  ] as const)('refuses the URL %s privately, saying what to paste, before any request', async ([input, reason], { bot: h }) => {
    await h.run(chatInput('feed', 'create', { cuenta: input, canal: channel, tipos: 'post' }));
    const b = body(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toMatch(reason);
    expect(b.data.embeds[0]!.description).toContain('https://www.instagram.com/name/');
    expect(b.data.embeds[0]!.description).toContain('@name');
  });

  botTest('refuses a post URL in Spanish too', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'create', { cuenta: 'https://www.instagram.com/p/C8xYz12AbCd/', canal: channel, tipos: 'post' }, { locale: 'es-ES' }));
    const b = body(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toMatch(/enlace a una publicación o a una página de Instagram, no a una cuenta/);
  });

  botTest('needs Manage Server at run time, in the user language', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }, { userId: MEMBER_ID, permissions: MEMBER_PERMS, locale: 'es-419' }));
    const b = body(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toBe('Necesitas el permiso **Gestionar servidor** para crear feeds.');
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ outcome: 'forbidden_member', upstreamStatus: null });
  });

  botTest('lets an Administrator through', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }, { permissions: ADMINISTRATOR_PERMS }));
    expect(body(h).data.embeds[0]!.title).toBe('Feed created');
  });

  botTest('records who created which feed for the audit channel, in the user language; a refused create records nothing', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(400, { message: 'no' }, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }));
    expect(audit).not.toHaveBeenCalled();
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post+story' }, { locale: 'es-ES' }));
    expect(audit.mock.calls).toEqual([
      [GUILD_ID, { kind: 'feedCreated', actor: { userId: ADMIN_ID }, feed: { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', tipos: ['post', 'story'] } }, 'es-ES'],
    ]);
  });

  botTest('an answer lost after the API made the feed: found in the list, reported created and audited once, never sent twice', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    h.agent.enableCallHistory();
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(502, 'Bad Gateway', { headers: rl() });
    const listed = { ...sampleFeeds, feeds: [...sampleFeeds.feeds, { id: 7, cuenta: 'nasa', canal: '1300000000000000009', estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: null }] };
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }));
    const embed = body(h).data.embeds[0]!;
    expect([embed.title, embed.fields?.[0]?.value, (embed as { footer?: { text: string } }).footer?.text]).toEqual(['Feed created', '#7', "The feed API's answer was lost; the feed was found in its list."]);
    expect(body(h).data.flags ?? 0).toBe(0);
    expect(h.agent.getCallHistory()?.calls().filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(audit.mock.calls.map((c) => c[1])).toEqual([{ kind: 'feedCreated', actor: { userId: ADMIN_ID }, feed: { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', tipos: ['post'] } }]);
  });

  botTest('an answer lost and the feed not in the list: told privately to look before creating again, not that it failed', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, '<html>proxy page</html>', { headers: rl() });
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }, { locale: 'es-ES' }));
    const b = body(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toMatch(/^La API de feeds no confirmó que se creara el feed de `@nasa` y todavía no aparece en la lista\. .* Referencia: `[A-Z0-9]{8}`\.$/);
    expect(audit).not.toHaveBeenCalled();
  });

  botTest('shows the API message of a 400, whatever its body shape', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(400, { message: 'channel is not allowed' }, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }));
    expect(body(h).data.embeds[0]!.description).toBe('The API rejected the request as invalid. The API says: “channel is not allowed”');
    expect(body(h).data.flags).toBe(MessageFlags.Ephemeral);
  });

  botTest('invalidates the autocomplete cache so the new feed shows at once', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.client.listFeeds({ apiKey: 'fbk_TestKeyForUnitTests_9f3Kq2', guildId: '1100000000000000001' });
    expect(await h.client.cachedFeeds('1100000000000000001')).toBeDefined();
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }));
    expect(await h.client.cachedFeeds('1100000000000000001')).toBeUndefined();
  });
});

describe('/feed delete', () => {
  function confirmation(h: BotHarness) {
    const b = body(h);
    return b.data.components[0]!.components;
  }

  botTest('asks for confirmation (ephemeral, Delete/Cancel), then deletes and says so in the user language', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    const b = body(h);
    expect(b.type).toBe(4);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.title).toBe('Delete feed #1?');
    expect(b.data.embeds[0]!.description).toContain('(@nasa → <#1300000000000000001>)');
    expect(b.data.embeds[0]!.description).toMatch(/expires <t:\d+:R>/);
    expect(b.data.embeds[0]!.description).not.toContain('Allowed by'); // Manage Server allowed it: no role to name
    const [yes, no] = confirmation(h);
    expect(yes!.label).toBe('Delete');
    expect(yes!.style).toBe(4);
    expect(no!.label).toBe('Cancel');

    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(yes!.custom_id, {}, MessageFlags.Ephemeral));
    const done = body(h, 1);
    expect(done.type).toBe(7);
    // The API's own (Spanish) `mensaje` adds nothing to our sentence: it is not shown.
    expect(done.data.embeds[0]).toEqual({ title: 'Feed deleted', color: 0x57f287, description: 'Feed #1 was deleted.' });
    expect(done.data.components).toEqual([]);
    expect(audit.mock.calls).toEqual([
      [GUILD_ID, { kind: 'feedDeleted', actor: { userId: ADMIN_ID }, feed: { id: 1, cuenta: 'nasa', canalId: '1300000000000000001', tipos: ['post', 'reel'] } }, 'en-US'],
    ]);
  });

  botTest('the confirmation shows the feed health marks, in the user language', async ({ bot: h }) => {
    // The gateway loaded the guild without feed 2's channel: it was deleted.
    knowGuild(h.discord.client, GUILD_ID, ['1300000000000000001']);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 2 }, { locale: 'es-ES' }));
    expect(body(h).data.embeds[0]!.description).toMatch(/caduca <t:\d+:R>\.\n⚠️ Canal eliminado · ⏸️ No activo$/);
  });

  botTest('names the feed-manager role that allowed the asker, and the audit event carries it', async ({ bot: h }) => {
    const role = '1500000000000000001';
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [role] }));
    const audit = vi.spyOn(h.audit, 'record');
    const manager = { userId: MEMBER_ID, permissions: MEMBER_PERMS, roles: [role] };
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }, manager));
    expect(body(h).data.embeds[0]!.description).toMatch(/\nAllowed by your role <@&1500000000000000001>\.$/);
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(confirmation(h)[0]!.custom_id, manager));
    expect(audit.mock.calls[0]![1]).toMatchObject({ kind: 'feedDeleted', actor: { userId: MEMBER_ID, viaRoleId: role } });
  });

  botTest('in Spanish, the sentence is ours too', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 2 }, { locale: 'es-ES' }));
    h.api.intercept({ path: '/v1/feeds/2', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Deleted feed 2 (v2 wording)' }, { headers: rl() });
    await h.run(buttonPress(confirmation(h)[0]!.custom_id, { locale: 'es-ES' }));
    expect(body(h, 1).data.embeds[0]).toMatchObject({ title: 'Feed eliminado', description: 'Se eliminó el feed #2.' });
  });

  botTest('a 200 with ok: false is not reported as a deletion (nor audited); the API text is quoted as a detail', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: false, mensaje: 'Feed 1 bloqueado' }, { headers: rl() });
    await h.run(buttonPress(confirmation(h)[0]!.custom_id));
    const done = body(h, 1);
    expect(done.data.embeds[0]!.title).toBeUndefined();
    expect(done.data.embeds[0]!.description).toBe(
      'The API answered without confirming that feed #1 was deleted. Check with `/feed list`.\nThe API says: “Feed 1 bloqueado”',
    );
    expect(done.data.components).toEqual([]);
    expect(audit).not.toHaveBeenCalled();
  });

  botTest('Cancel deletes nothing', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 2 }));
    await h.run(buttonPress(confirmation(h)[1]!.custom_id));
    expect(body(h, 1).data.embeds[0]!.description).toBe('Cancelled: feed #2 was not deleted.');
  });

  botTest('a confirmation posted before the custom_id named its asking interaction still deletes (audited by id)', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const expires = Math.ceil(Date.now() / 1000) + 60;
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(`feed:delete:yes:1:${ADMIN_ID}:${expires}`, {}, MessageFlags.Ephemeral));
    expect(body(h).data.embeds[0]!.description).toBe('Feed #1 was deleted.');
    expect(audit.mock.calls[0]![1]).toEqual({ kind: 'feedDeleted', actor: { userId: ADMIN_ID }, feed: { id: 1 } });
  });

  botTest('only the invoker can press the buttons', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    await h.run(buttonPress(confirmation(h)[0]!.custom_id, { userId: MEMBER_ID }));
    const refusal = body(h, 1);
    expect(refusal.type).toBe(4);
    expect(refusal.data.flags).toBe(MessageFlags.Ephemeral);
  });

  botTest('an unknown id is refused before asking', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 99 }));
    expect(body(h).data.embeds[0]!.description).toBe('Feed #99 does not exist in this server.');
    expect(body(h).data.components ?? []).toEqual([]);
  });

  botTest('a 404 on delete (feed gone meanwhile) names the feed', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(404, { error: 'not found' }, { headers: rl() });
    await h.run(buttonPress(confirmation(h)[0]!.custom_id));
    const b = body(h, 1);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.description).toBe('Feed #1 does not exist in this server.');
  });

  botTest('needs Manage Server, at the command and again at the button', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'delete', { id: 1 }, { permissions: MEMBER_PERMS }));
    expect(body(h).data.embeds[0]!.description).toBe('You need the **Manage Server** permission to delete feeds.');
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    const yes = (h.discord.callbacks()[1]!.body as Body).data.components[0]!.components[0]!;
    // Same user, permission revoked in between.
    await h.run(buttonPress(yes.custom_id, { permissions: MEMBER_PERMS }));
    expect((h.discord.callbacks()[2]!.body as Body).data.embeds[0]!.description).toMatch(/Manage Server/);
  });
});

describe('/feed delete, once the confirmation has expired', () => {
  botTest.override({ harness: { confirmTtlMs: 50 } });

  botTest('deletes nothing, and the buttons are taken away', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    const yes = body(h).data.components[0]!.components[0]!;
    await new Promise((r) => setTimeout(r, 1_100)); // the custom_id's expiry has second precision
    expect(h.discord.edits().at(-1)!.body).toMatchObject({ components: [], embeds: [{ description: expect.stringMatching(/expired/) }] });
    await h.run(buttonPress(yes.custom_id));
    expect(body(h, 1).data.embeds[0]!.description).toMatch(/expired/);
  });
});

describe('autocomplete for feed ids', () => {
  botTest('answers from the API on a cache miss, then from the cache without a request', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
    const first = body(h);
    expect(first.type).toBe(8);
    expect(first.data.choices).toEqual([
      { name: '#1 · @nasa → #1300000000000000001 · Posts + Reels', value: 1 },
      { name: '#2 · @esa → #1300000000000000002 · Stories', value: 2 },
    ]);
    for (const typed of ['e', 'es', 'esa']) await h.run(autocomplete('feed', 'posts', { id: typed }, 'id'));
    expect(body(h, 3).data.choices).toEqual([{ name: '#2 · @esa → #1300000000000000002 · Stories', value: 2 }]);
  });

  botTest('answers an empty list when no key is set, without a request', async ({ bot: h }) => {
    await h.keys.delete('1100000000000000001');
    await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
    expect(body(h).data.choices).toEqual([]);
  });

  botTest('never returns more than 25 choices of at most 100 characters', async ({ bot: h }) => {
    const many = Array.from({ length: 40 }, (_, i) => ({ ...sampleFeeds.feeds[0]!, id: i + 1, cuenta: `a${i}_${'z'.repeat(26)}`.slice(0, 30) }));
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: many, total: 40, plan: 'server' }, { headers: rl() });
    await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
    const choices = body(h).data.choices!;
    expect(choices).toHaveLength(25);
    for (const c of choices) expect(c.name.length).toBeLessThanOrEqual(100);
  });

  botTest('answers empty in time when the API is slow, and the late answer fills the cache', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() }).delay(2_600);
    const started = Date.now();
    await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
    const answeredAfter = h.discord.callbacks()[0]!.at - started;
    expect(body(h).data.choices).toEqual([]);
    expect(answeredAfter).toBeLessThan(3_000);
    await new Promise((r) => setTimeout(r, 800));
    expect((await h.client.cachedFeeds('1100000000000000001'))?.feeds).toHaveLength(2);
  });
});
