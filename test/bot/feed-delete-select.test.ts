/**
 * /feed delete without an option: a private multi-select of the server's feeds (account, id,
 * health marks), 25 a page with Previous/Next updating the message in place, then bulk delete's
 * confirmation for the feeds chosen, and the batch runner deletes exactly those. Gateway and HTTP.
 */
import { describe, expect, vi } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { AuditEvent } from '../../src/audit/events.js';
import { GUILD_ID, MEMBER_ID, MEMBER_PERMS, buttonPress, chatInput, stringSelectPress, ADMIN_ID } from '../helpers/discord.js';
import { botTest, rl, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';
import { accepted, componentCount } from './forms-kit.js';

const HERE = '1300000000000000011';
const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
const feed = (id: number, estado = 'activo') => ({ id, cuenta: `account${id}`, canal: HERE, estado, tipos: ['post'], filtros: 0, ultimoPost: hourAgo });
/** 30 feeds, #3 paused (marked "not active"). */
const FEEDS = Array.from({ length: 30 }, (_, i) => feed(i + 1, i + 1 === 3 ? 'pausado' : 'activo'));

type Option = { label: string; value: string; description?: string };
type Component = { type: number; custom_id: string; label?: string; disabled?: boolean; options?: Option[]; min_values?: number; max_values?: number };
type Body = { type: number; data: { flags?: number; embeds: { title?: string; description?: string; footer?: { text: string } }[]; components: { components: Component[] }[] } };

const last = (h: BotHarness) => accepted(h.discord.callbacks().at(-1)!) as unknown as Body;

async function open(h: BotHarness, locale = 'en-US', invoker = {}): Promise<Body> {
  knowGuild(h.discord.client, GUILD_ID, [HERE]);
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: FEEDS, total: FEEDS.length, plan: 'server' }, { headers: rl() });
  await h.run(chatInput('feed', 'delete', {}, { locale, ...invoker }));
  return last(h);
}

describe('/feed delete without an option', () => {
  botTest('shows a private multi-select of the first 25 feeds, with marks, and Previous/Next', async ({ bot: h }) => {
    const b = await open(h);
    expect(b.type).toBe(4);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]).toMatchObject({ title: 'Delete feeds', footer: { text: 'Page 1 of 2' } });
    expect(b.data.embeds[0]!.description).toContain('This server has 30 feeds.');
    expect(componentCount(b.data.components)).toEqual({ rows: 2, components: 3 });
    const [select] = b.data.components[0]!.components;
    expect(select).toMatchObject({ type: 3, custom_id: `feed:delete-pick:${ADMIN_ID}:1`, min_values: 1, max_values: 25 });
    expect(select!.options).toHaveLength(25);
    expect(select!.options![0]).toEqual({ label: '@account1 · #1', value: '1', description: 'Posts' });
    expect(select!.options![2]).toEqual({ label: '⏸️ @account3 · #3', value: '3', description: 'Not active' });
    expect(b.data.components[1]!.components.map((c) => [c.label, c.disabled])).toEqual([
      ['Previous', true],
      ['Next', false],
    ]);
  });

  botTest('Next shows the second page in place (type 7), from the cached list', async ({ bot: h }) => {
    const first = await open(h);
    await h.run(buttonPress(first.data.components[1]!.components[1]!.custom_id, {}, MessageFlags.Ephemeral));
    const b = last(h);
    expect(b.type).toBe(7);
    expect(b.data.embeds[0]!.footer).toEqual({ text: 'Page 2 of 2' });
    const [select] = b.data.components[0]!.components;
    expect(select!.options!.map((o) => o.value)).toEqual(['26', '27', '28', '29', '30']);
    expect(select!.max_values).toBe(5);
    expect(b.data.components[1]!.components.map((c) => c.disabled)).toEqual([false, true]);
  });

  botTest('choosing 2 → the confirmation for exactly those (in place) → both deleted through the batch runner, audited', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const first = await open(h);
    await h.run(stringSelectPress(first.data.components[0]!.components[0]!.custom_id, ['2', '3'], {}, MessageFlags.Ephemeral));
    const confirmation = last(h);
    expect(confirmation.type).toBe(7);
    expect(confirmation.data.embeds[0]!.title).toBe('Delete 2 feeds?');
    expect(confirmation.data.embeds[0]!.description).toMatch(/^This permanently deletes the 2 chosen feeds:\n\*\*#2\*\* @account2 → <#\d+>\n\*\*#3\*\* @account3 → <#\d+> · ⏸️ Not active\n/);
    const [yes] = confirmation.data.components[0]!.components;
    expect(yes).toMatchObject({ label: 'Delete 2' });
    for (const id of [2, 3]) h.api.intercept({ path: `/v1/feeds/${id}`, method: 'DELETE' }).reply(200, { ok: true, mensaje: 'ok' }, { headers: rl() });
    await h.run(buttonPress(yes!.custom_id, {}, MessageFlags.Ephemeral));
    const report = h.discord.edits().at(-1)!.body as Body['data'];
    expect(report.embeds[0]).toMatchObject({ title: 'Feeds deleted', description: '2 deleted · 0 already gone · 0 failed · 0 not attempted' });
    expect(audit.mock.calls.map((c) => (c[1] as AuditEvent & { feed: { id: number } }).feed.id)).toEqual([2, 3]);
  });

  botTest('in Spanish', async ({ bot: h }) => {
    const b = await open(h, 'es-ES');
    expect(b.data.embeds[0]).toMatchObject({ title: 'Eliminar feeds', footer: { text: 'Página 1 de 2' } });
    expect(b.data.components[0]!.components[0]!.options![2]!.description).toBe('No activo');
    await h.run(stringSelectPress(b.data.components[0]!.components[0]!.custom_id, ['1'], { locale: 'es-ES' }, MessageFlags.Ephemeral));
    expect(last(h).data.embeds[0]!.description).toMatch(/^Esto elimina para siempre el feed elegido:/);
  });

  botTest('a member without the permission is refused before any request; someone else cannot use the picker', async ({ bot: h }) => {
    await h.run(chatInput('feed', 'delete', {}, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    const first = await open(h);
    await h.run(stringSelectPress(first.data.components[0]!.components[0]!.custom_id, ['1'], { userId: MEMBER_ID }, MessageFlags.Ephemeral));
    const refused = last(h);
    expect(refused.type).toBe(4);
    expect(refused.data.flags).toBe(MessageFlags.Ephemeral);
  });

  botTest('an id the API lists twice is offered once (Discord refuses repeated option values), and counted once', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    // #1 twice (the copy paused) and #2 twice: the first of each is the one shown.
    const feeds = [feed(1), feed(2), feed(1, 'pausado'), feed(2)];
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl() });
    await h.run(chatInput('feed', 'delete', {}));
    // accepted(): the emulator's validators find nothing Discord would refuse.
    const b = last(h);
    expect(b.data.embeds[0]!.description).toContain('This server has 2 feeds.');
    const [select] = b.data.components[0]!.components;
    expect(select!.options!.map((o) => o.value)).toEqual(['1', '2']);
    expect(select!.options![0]).toEqual({ label: '@account1 · #1', value: '1', description: 'Posts' });
    expect(select!.max_values).toBe(2);
  });

  botTest('a server without feeds is told so', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: rl() });
    await h.run(chatInput('feed', 'delete', {}));
    expect(last(h).data.embeds[0]!.description).toBe('This server has no feed: nothing to delete.');
  });
});
