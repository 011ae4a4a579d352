/**
 * /feed delete canal:… | problemas:true — one confirmation for many feeds, then the deletes
 * through the batch runner (progress, budget waits, deadline) and a final report; audit per feed.
 */
import { describe, expect, vi } from 'vitest';
import { MessageFlags, PermissionFlagsBits } from 'discord.js';
import type { AuditEvent } from '../../src/audit/events.js';
import { GUILD_ID, MEMBER_ID, buttonPress, chatInput, type Invoker, type OptionValue } from '../helpers/discord.js';
import { TEST_KEY, botTest, rl, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';

type Embed = { title?: string; description?: string; fields?: { name: string; value: string }[] };
type Body = { type: number; data: { flags?: number; embeds: Embed[]; components: { components: { custom_id: string; label: string }[] }[] } };
const callback = (h: BotHarness, i: number) => h.discord.callbacks()[i]!.body as Body;
const lastEdit = (h: BotHarness) => h.discord.edits().at(-1)!.body as { embeds: Embed[]; components: unknown[] };

const HERE = '1300000000000000011';
const GONE_CHANNEL = '1300000000000000012';
const OTHER = '1300000000000000013';
const ROLE = '1500000000000000001';
const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
const feed = (id: number, cuenta: string, canal: string, estado = 'activo', ultimoPost = hourAgo) => ({ id, cuenta, canal, estado, tipos: ['post'], filtros: 0, ultimoPost });
/** #11 healthy and #12 paused in HERE; #13 in a deleted channel; #14 stale and #15 healthy in OTHER. */
const FEEDS = [feed(11, 'nasa', HERE), feed(12, 'esa', HERE, 'pausado'), feed(13, 'jaxa', GONE_CHANNEL), feed(14, 'isro', OTHER, 'activo', monthAgo), feed(15, 'cnsa', OTHER)];
const listOf = (feeds: typeof FEEDS) => ({ feeds, total: feeds.length, plan: 'server' });
const here = { channel: { id: HERE, name: 'space' } };

interface Asking {
  invoker?: Invoker;
  feeds?: typeof FEEDS;
  listHeaders?: Record<string, string>;
  /** Whether the gateway has loaded the guild (its channels, and its roles: none here). Default true. */
  known?: boolean;
}

/** The guild is known with HERE and OTHER (GONE_CHANNEL was deleted); the list answers `feeds`. */
async function ask(h: BotHarness, options: Record<string, OptionValue>, asking: Asking = {}): Promise<Body> {
  const { invoker = {}, feeds = FEEDS, listHeaders = rl(), known = true } = asking;
  if (known) knowGuild(h.discord.client, GUILD_ID, [HERE, OTHER]);
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listOf(feeds), { headers: listHeaders });
  await h.run(chatInput('feed', 'delete', options, invoker));
  return callback(h, 0);
}
const buttons = (b: Body) => b.data.components[0]!.components;
function answerDelete(h: BotHarness, id: number, status = 200, body: unknown = { ok: true, mensaje: `Feed ${id} eliminado` }, headers = rl()) {
  return h.api.intercept({ path: `/v1/feeds/${id}`, method: 'DELETE' }).reply(status, body as object, { headers });
}
const deletedEvents = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((call) => call[1] as AuditEvent);

describe('/feed delete canal', () => {
  botTest('lists the feeds of the channel with their marks, then deletes them and reports, with an audit event each', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const asked = await ask(h, { canal: here });
    expect(asked.data.flags).toBe(MessageFlags.Ephemeral);
    expect(asked.data.embeds[0]!.title).toBe('Delete 2 feeds?');
    expect(asked.data.embeds[0]!.description).toMatch(
      new RegExp(
        `^This permanently deletes the 2 feeds that forward into <#${HERE}>:\n\\*\\*#11\\*\\* @nasa → <#${HERE}>\n\\*\\*#12\\*\\* @esa → <#${HERE}> · ⏸️ Not active\nForwarding stops at once and it cannot be undone.\nThis confirmation expires <t:\\d+:R>.$`,
      ),
    );
    expect(buttons(asked).map((b) => b.label)).toEqual(['Delete 2', 'Cancel']);
    for (const b of buttons(asked)) expect(b.custom_id.length).toBeLessThanOrEqual(100);

    answerDelete(h, 11);
    answerDelete(h, 12);
    await h.run(buttonPress(buttons(asked)[0]!.custom_id, {}, MessageFlags.Ephemeral));
    const progress = callback(h, 1);
    expect(progress.type).toBe(7);
    expect(progress.data.embeds[0]).toMatchObject({ title: 'Deleting feeds', description: '0 of 2 deleted' });
    expect(lastEdit(h)).toMatchObject({
      components: [],
      embeds: [
        {
          title: 'Feeds deleted',
          description: '2 deleted · 0 already gone · 0 failed · 0 not attempted',
          fields: [{ name: 'Deleted (2)', value: `**#11** @nasa → <#${HERE}>\n**#12** @esa → <#${HERE}>` }],
        },
      ],
    });
    expect(deletedEvents(audit)).toEqual([
      { kind: 'feedDeleted', actor: { userId: expect.any(String) }, feed: { id: 11, cuenta: 'nasa', canalId: HERE, tipos: ['post'] } },
      { kind: 'feedDeleted', actor: { userId: expect.any(String) }, feed: { id: 12, cuenta: 'esa', canalId: HERE, tipos: ['post'] } },
    ]);
    expect(audit.mock.calls.every(([guild, , locale]) => guild === GUILD_ID && locale === 'en-US')).toBe(true);
  });

  botTest('a channel without feeds: nothing to confirm', async ({ bot: h }) => {
    const b = await ask(h, { canal: { channel: { id: '1300000000000000099', name: 'empty' } } });
    expect(b.data.embeds[0]!.description).toBe('No feed forwards into <#1300000000000000099>: nothing to delete.');
    expect(b.data.components ?? []).toEqual([]);
  });

  botTest('many feeds: the first 15 are listed, then how many more', async ({ bot: h }) => {
    const many = Array.from({ length: 22 }, (_, i) => feed(100 + i, `acct${i}`, HERE));
    const b = await ask(h, { canal: here }, { feeds: many });
    const lines = b.data.embeds[0]!.description!.split('\n');
    expect(lines.filter((l) => l.startsWith('**#'))).toHaveLength(15);
    expect(lines).toContain('…and 7 more.');
    expect(buttons(b)[0]!.label).toBe('Delete 22');
  });

  botTest('names the feed-manager role that allowed the asker, and the audit events carry it', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [ROLE] }));
    const member = { userId: MEMBER_ID, permissions: String(PermissionFlagsBits.SendMessages), roles: [ROLE] };
    const audit = vi.spyOn(h.audit, 'record');
    // Not loaded by the gateway: the member's roles are the interaction's own (a loaded guild knows its roles).
    const asked = await ask(h, { canal: here }, { invoker: member, known: false });
    expect(asked.data.embeds[0]!.description).toContain(`Allowed by your role <@&${ROLE}>.`);
    answerDelete(h, 11);
    answerDelete(h, 12);
    await h.run(buttonPress(buttons(asked)[0]!.custom_id, member));
    expect(deletedEvents(audit).map((e) => 'actor' in e && e.actor)).toEqual([
      { userId: MEMBER_ID, viaRoleId: ROLE },
      { userId: MEMBER_ID, viaRoleId: ROLE },
    ]);
  });

  botTest('skips the feeds gone since the confirmation (listed again on press)', async ({ bot: h }) => {
    const asked = await ask(h, { canal: here });
    // Deleted meanwhile (through the bot: the cached list is dropped, so the press lists again).
    answerDelete(h, 11);
    await h.client.deleteFeed({ apiKey: TEST_KEY, guildId: GUILD_ID }, 11);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listOf(FEEDS.filter((f) => f.id !== 11)), { headers: rl() });
    answerDelete(h, 12);
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    expect(lastEdit(h).embeds[0]).toMatchObject({
      title: 'Feeds deleted',
      description: '1 deleted · 1 already gone · 0 failed · 0 not attempted',
      fields: [
        { name: 'Deleted (1)', value: `**#12** @esa → <#${HERE}>` },
        { name: 'Already gone (1)', value: `**#11** @nasa → <#${HERE}>` },
      ],
    });
  });

  botTest('waits for the request budget to reset mid-way, says so, and finishes', async ({ bot: h }) => {
    // One window for every answer (the gate reads answers of an earlier window as stale).
    const reset = String(Math.floor(Date.now() / 1000) + 3);
    const window = (remaining: number) => ({ 'content-type': 'application/json', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': reset });
    const asked = await ask(h, { canal: here }, { listHeaders: window(1) });
    answerDelete(h, 11, 200, undefined, window(0)); // the window is spent: #12 must wait for its reset
    answerDelete(h, 12);
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    const waiting = h.discord.edits().find((e) => JSON.stringify(e.body).includes('budget is spent'))!.body as { embeds: Embed[] };
    expect(waiting.embeds[0]!.description).toMatch(/^1 of 2 deleted\n⏳ The feed API request budget is spent for this minute; continuing <t:\d+:R>\.$/);
    expect(lastEdit(h).embeds[0]!.description).toBe('2 deleted · 0 already gone · 0 failed · 0 not attempted');
  });
});

describe('/feed delete problemas', () => {
  botTest('in Spanish: every feed with a warning; a 404 counts as gone, a refusal says why, audit only for the deleted', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const asked = await ask(h, { problemas: true }, { invoker: { locale: 'es-ES' } });
    expect(asked.data.embeds[0]!.title).toBe('¿Eliminar 3 feeds?');
    const description = asked.data.embeds[0]!.description!;
    expect(description).toContain('Esto elimina para siempre los 3 feeds con avisos:');
    expect(description).toContain(`**#12** @esa → <#${HERE}> · ⏸️ No activo`);
    expect(description).toContain(`**#13** @jaxa → <#${GONE_CHANNEL}> · ⚠️ Canal eliminado`);
    expect(description).toContain(`**#14** @isro → <#${OTHER}> · ⏳ Sin publicaciones desde hace más de 7 días`);
    expect(description).not.toContain('#11');
    expect(buttons(asked).map((b) => b.label)).toEqual(['Eliminar 3', 'Cancelar']);

    answerDelete(h, 12);
    answerDelete(h, 13, 404, { error: 'not found' });
    answerDelete(h, 14, 400, { message: 'feed bloqueado' });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id, { locale: 'es-ES' }));
    const report = lastEdit(h).embeds[0]!;
    expect(report.title).toBe('No se eliminaron todos los feeds');
    expect(report.description).toBe('1 eliminados · 1 ya no existían · 1 fallidos · 0 sin intentar');
    expect(report.fields!.map((f) => f.name)).toEqual(['Eliminados (1)', 'Ya no existían (1)', 'Fallidos (1)']);
    expect(report.fields![2]!.value).toBe(`**#14** @isro → <#${OTHER}>: La API rechazó la petición por no ser válida. La API dice: «feed bloqueado»`);
    expect(deletedEvents(audit).map((e) => 'feed' in e && e.feed.id)).toEqual([12]);
  });

  botTest('no feed with a warning: nothing to confirm', async ({ bot: h }) => {
    const b = await ask(h, { problemas: true }, { feeds: [FEEDS[0]!, FEEDS[4]!] });
    expect(b.data.embeds[0]!.description).toBe('No feed has a warning: nothing to delete.');
  });

  botTest('an error that would fail every delete stops the batch; the rest is reported as not attempted', async ({ bot: h }) => {
    const asked = await ask(h, { problemas: true });
    answerDelete(h, 12);
    answerDelete(h, 13, 401, { error: 'invalid key' });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    const report = lastEdit(h).embeds[0]!;
    expect(report.description).toBe(
      '1 deleted · 0 already gone · 0 failed · 2 not attempted\nStopped: The API key of this server is invalid or was regenerated. An admin must set the new key with `/apikey set`.\nRun `/feed delete` again to delete the rest.',
    );
    expect(report.fields!.at(-1)).toEqual({ name: 'Not attempted (2)', value: `**#13** @jaxa → <#${GONE_CHANNEL}>\n**#14** @isro → <#${OTHER}>` });
  });

  botTest('a 401 that stops the batch tells the audit channel the key stopped working, as the router would', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: '1300000000000000777' }));
    const record = vi.spyOn(h.audit, 'record');
    const asked = await ask(h, { problemas: true });
    answerDelete(h, 12, 401, { error: 'invalid key' });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    expect(record.mock.calls.map(([guild, event]) => [guild, event.kind])).toEqual([[GUILD_ID, 'keyStoppedWorking']]);
  });
});

describe('/feed delete: which feeds', () => {
  botTest.for([
    // None at all (or problemas:false alone) opens the picker: test/bot/feed-delete-select.test.ts.
    [{ id: 1, canal: here }, 'en-US', 'Give at most one of `id`, `channel` or `problems`: one feed, every feed of a channel, or every feed with a warning (none: pick the feeds from a list).'],
    [{ canal: here, problemas: true }, 'es-ES', 'Indica como mucho uno de `id`, `canal` o `problemas`: un feed, todos los feeds de un canal o todos los feeds con algún aviso (ninguno: eliges los feeds de una lista).'],
  ] as const)('%j (%s) is refused before any request', async ([options, locale, message], { bot: h }) => {
    await h.run(chatInput('feed', 'delete', options as Record<string, OptionValue>, { locale }));
    const b = callback(h, 0);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    if (typeof message === 'string') expect(b.data.embeds[0]!.description).toBe(message);
    else expect(b.data.embeds[0]!.description).toMatch(message);
  });
});

describe('/feed delete bulk confirmation', () => {
  botTest('Cancel deletes nothing, and the buttons are then spent', async ({ bot: h }) => {
    const asked = await ask(h, { canal: here });
    await h.run(buttonPress(buttons(asked)[1]!.custom_id));
    expect(callback(h, 1).data.embeds[0]!.description).toBe('Cancelled: no feed was deleted.');
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    expect(callback(h, 2).data.embeds[0]!.description).toMatch(/expired/);
  });

  botTest('only the invoker can press; the plan stays for them', async ({ bot: h }) => {
    const asked = await ask(h, { canal: here });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id, { userId: MEMBER_ID }));
    expect(callback(h, 1)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(callback(h, 1).data.embeds[0]!.description).toBe('Only the person who ran this command can use these buttons.');
    answerDelete(h, 11);
    answerDelete(h, 12);
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    expect(lastEdit(h).embeds[0]!.title).toBe('Feeds deleted');
  });

  botTest('the permission is checked again on press; a refused press leaves the confirmation usable', async ({ bot: h }) => {
    const asked = await ask(h, { canal: here });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id, { permissions: String(PermissionFlagsBits.SendMessages) }));
    expect(callback(h, 1).data.embeds[0]!.description).toBe('You need the **Manage Server** permission to delete feeds.');
    // Nothing was deleted (no DELETE answered), and the plan is still there for a press that may.
    answerDelete(h, 11);
    answerDelete(h, 12);
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    expect(lastEdit(h).embeds[0]).toMatchObject({ title: 'Feeds deleted', description: '2 deleted · 0 already gone · 0 failed · 0 not attempted' });
  });

  botTest('a second press while deleting is told so, and does not replace the progress', async ({ bot: h }) => {
    const asked = await ask(h, { canal: here });
    answerDelete(h, 11).delay(1_000);
    answerDelete(h, 12);
    const first = h.run(buttonPress(buttons(asked)[0]!.custom_id));
    await vi.waitFor(() => expect(h.discord.callbacks()).toHaveLength(2)); // "0 of 2 deleted": it runs
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    await first;
    const second = h.discord.callbacks().map((c) => c.body as Body).find((b) => b.type === 4 && b.data.flags === MessageFlags.Ephemeral && b !== asked);
    expect(second!.data.embeds[0]!.description).toBe('These feeds are being deleted already: the message above shows the progress.');
    expect(lastEdit(h).embeds[0]!.title).toBe('Feeds deleted');
  });
});

describe('/feed delete bulk, once the confirmation has expired', () => {
  botTest.override({ harness: { confirmTtlMs: 50 } });

  botTest('deletes nothing, and the buttons are taken away', async ({ bot: h }) => {
    const asked = await ask(h, { problemas: true });
    await new Promise((r) => setTimeout(r, 1_100)); // the custom_id's expiry has second precision
    expect(lastEdit(h)).toMatchObject({ components: [], embeds: [{ description: expect.stringMatching(/expired/) }] });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    expect(callback(h, 1).data.embeds[0]!.description).toMatch(/expired/);
  });
});

describe('/feed delete bulk, near the end of the interaction token', () => {
  // Ten minutes into the press's 15: a reset as far as the API may say (10 min) ends too late.
  botTest.override({ harness: { now: () => Date.now() + 10 * 60_000 } });

  botTest('stops cleanly when the budget resets after the token expires, and says what was not attempted', async ({ bot: h }) => {
    const asked = await ask(h, { canal: here });
    answerDelete(h, 11);
    answerDelete(h, 12, 429, { error: 'rate limited' }, { 'content-type': 'application/json', 'retry-after': '900' });
    await h.run(buttonPress(buttons(asked)[0]!.custom_id));
    const report = lastEdit(h).embeds[0]!;
    expect(report.description).toMatch(
      /^1 deleted · 0 already gone · 0 failed · 1 not attempted\nStopped: the request budget resets <t:\d+:R>, after this interaction's 15 minutes run out\.\nRun `\/feed delete` again to delete the rest\.$/,
    );
    expect(report.fields!.at(-1)).toEqual({ name: 'Not attempted (1)', value: `**#12** @esa → <#${HERE}>` });
  });
});
