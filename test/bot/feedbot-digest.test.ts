/**
 * /feedbot digest set|off|status|preview, and the health-check field of /feedbot audit-channel
 * status, with the sweeps attached to the harness's services as app.ts attaches them:
 * the hour comes back as a Discord timestamp, Manage Server only, answered privately, en and es.
 * Both transports (this file runs in both projects). The clock is fake.
 */
import { describe, expect } from 'vitest';
import { ApplicationCommandOptionType, MessageFlags, type APIApplicationCommandInteractionDataOption } from 'discord.js';
import { GUILD_ID, MEMBER_PERMS, chatInput, type Invoker, type OptionValue } from '../helpers/discord.js';
import { botTest, rl, sampleStats, type BotHarness } from '../helpers/bot.js';
import { AUDIT_CHANNEL_ID, answerRest, loadIntoCache, type World } from '../audit/discord-world.js';

type Embed = { title?: string; description?: string; fields?: { name: string; value: string }[] };
type Body = { type: number; data: { flags?: number; embeds: Embed[] } };

const FEED_CHANNEL = '1300000000000000001';
const world: World = { guildId: GUILD_ID, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit' }, { id: FEED_CHANNEL, name: 'media' }] };
// Sunday 2026-11-22 12:00 UTC; the digest set for Monday (0) at 9 is due 21 hours later.
const SUNDAY_NOON = Date.parse('2026-11-22T12:00:00.000Z');
const MONDAY_9 = Date.parse('2026-11-23T09:00:00.000Z');
const ts = (ms: number, style: 'R' | 'F') => `<t:${Math.floor(ms / 1000)}:${style}>`;
const HOUR = 3_600_000;
const INTERVAL = 60_000;

let clock = SUNDAY_NOON;
const now = () => clock;

/** `/feedbot <group> <sub>`: the payload builder's subcommand, wrapped in its group. */
function grouped(group: string, sub: string, options: Record<string, OptionValue> = {}, invoker: Invoker = {}) {
  const raw = chatInput('feedbot', sub, options, invoker);
  const inner = raw.data.options as APIApplicationCommandInteractionDataOption[];
  raw.data.options = [{ name: group, type: ApplicationCommandOptionType.SubcommandGroup, options: inner } as APIApplicationCommandInteractionDataOption];
  return raw;
}
const digest = (sub: string, options: Record<string, OptionValue> = {}, invoker: Invoker = {}) => grouped('digest', sub, options, invoker);
const es: Invoker = { locale: 'es-ES' };

/** The last answer's data (the initial response, or its edit when the bot deferred). */
function last(h: BotHarness): Body['data'] {
  const edit = h.discord.edits().at(-1)?.body as Body['data'] | undefined;
  const callbacks = h.discord.callbacks();
  return edit ?? (callbacks[callbacks.length - 1]!.body as Body).data;
}
const lastEmbed = (h: BotHarness) => last(h).embeds[0]!;
const privately = (h: BotHarness) => ((h.discord.callbacks().at(-1)!.body as Body).data.flags ?? 0) & MessageFlags.Ephemeral;

function install(h: BotHarness) {
  loadIntoCache(h.discord.client, world);
  answerRest(h.discord.recorder, world);
}
const setAuditChannel = (h: BotHarness) => h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID }));

const feeds = (paused: boolean) => ({
  feeds: [
    { id: 1, cuenta: 'nasa', canal: FEED_CHANNEL, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: new Date(clock - HOUR).toISOString() },
    { id: 2, cuenta: 'esa', canal: FEED_CHANNEL, estado: paused ? 'pausado' : 'activo', tipos: ['post'], filtros: 0, ultimoPost: new Date(clock - HOUR).toISOString() },
  ],
  total: 2,
  plan: 'server',
});

describe('/feedbot digest', () => {
  botTest.override({ harness: { now } });

  botTest('set shows the hour back as a Discord timestamp and stores the plan; status and off follow it (en)', async ({ bot: h }) => {
    clock = SUNDAY_NOON;
    install(h);
    await setAuditChannel(h);
    const sweeps = await h.startSweeps({ intervalMs: INTERVAL });

    await h.run(digest('status'));
    expect(privately(h)).toBeTruthy();
    expect(lastEmbed(h)).toMatchObject({ title: 'Weekly digest', description: 'No weekly digest is set. Set one with `/feedbot digest set`.' });

    await h.run(digest('set', { dia: 0, hora: 9 }));
    expect(privately(h)).toBeTruthy();
    expect(lastEmbed(h).description).toBe(
      `The weekly digest is posted in the audit channel every Monday at this time: the next one ${ts(MONDAY_9, 'R')} (${ts(MONDAY_9, 'F')}).`,
    );
    expect((await sweeps.store.get(GUILD_ID)).digest).toEqual({ day: 0, hour: 9 });

    await h.run(digest('status'));
    expect(lastEmbed(h).description).toBe(`The weekly digest is posted every Monday: the next one ${ts(MONDAY_9, 'R')} (${ts(MONDAY_9, 'F')}).`);

    await h.run(digest('off'));
    expect(lastEmbed(h).description).toBe('The weekly digest is off.');
    expect((await sweeps.store.get(GUILD_ID)).digest).toBeUndefined();
    await h.run(digest('off'));
    expect(lastEmbed(h).description).toBe('There was no weekly digest to turn off.');
  });

  botTest('es: set without an audit channel says it waits for one; status names the week last posted', async ({ bot: h }) => {
    clock = SUNDAY_NOON;
    install(h);
    const sweeps = await h.startSweeps({ intervalMs: INTERVAL });
    await h.run(digest('set', { dia: 4, hora: 18 }, es));
    const friday6pm = Date.parse('2026-11-27T18:00:00.000Z');
    expect(lastEmbed(h)).toEqual({
      title: 'Resumen semanal',
      description: `El resumen semanal se publica cada viernes a esta hora, el próximo ${ts(friday6pm, 'R')} (${ts(friday6pm, 'F')}), en cuanto se configure un canal de auditoría con \`/feedbot canal-auditoria establecer\`.`,
    });
    await sweeps.store.update(GUILD_ID, (c) => ({ next: { ...c, digest: { ...c.digest!, lastWeek: '2026-W47' } }, result: undefined }));
    await h.run(digest('status', {}, es));
    expect(lastEmbed(h).description).toBe(
      `El resumen semanal se publica cada viernes: el próximo ${ts(friday6pm, 'R')} (${ts(friday6pm, 'F')}).\nEl último se publicó para la semana 2026-W47.`,
    );
    // A new hour keeps the week already posted (no second digest for it).
    await h.run(digest('set', { dia: 4, hora: 20 }, es));
    expect((await sweeps.store.get(GUILD_ID)).digest).toEqual({ day: 4, hour: 20, lastWeek: '2026-W47' });
    await h.run(digest('off', {}, es));
    expect(lastEmbed(h).description).toBe('El resumen semanal está desactivado.');
  });

  botTest('preview shows this week’s digest privately, now, from GET /stats and GET /feeds (en and es)', async ({ bot: h }) => {
    clock = SUNDAY_NOON;
    install(h);
    await setAuditChannel(h);
    await h.startSweeps({ intervalMs: INTERVAL });
    const answerBoth = () => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats({ feedsActivos: 1, feedsPausados: 1, postsEstaSemana: 42, cuentaMasActiva: 'nasa' }), { headers: rl() });
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, feeds(true), { headers: rl() });
    };
    answerBoth();
    await h.run(digest('preview'));
    expect(privately(h)).toBeTruthy();
    const en = lastEmbed(h);
    expect(en.title).toBe('Weekly digest');
    const fields = Object.fromEntries((en.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields).toMatchObject({ 'Posts forwarded this week': '42', 'Most active account': '@nasa', Feeds: '1 active · 1 paused', 'This week': '0 created · 0 deleted' });
    expect(fields['1 feed with a warning']).toContain('esa');

    answerBoth();
    await h.run(digest('preview', {}, es));
    const esEmbed = lastEmbed(h);
    expect(esEmbed.title).toBe('Resumen semanal');
    expect(Object.fromEntries((esEmbed.fields ?? []).map((f) => [f.name, f.value]))).toMatchObject({ 'Publicaciones reenviadas esta semana': '42', Feeds: '1 activos · 1 en pausa' });
    // Nothing was posted to the audit channel by a preview.
    expect(h.discord.calls.filter((c) => c.method === 'POST' && c.path.includes(`/channels/${AUDIT_CHANNEL_ID}/messages`))).toEqual([]);
  });

  botTest('is for Manage Server only: a member is refused and nothing is stored', async ({ bot: h }) => {
    install(h);
    const sweeps = await h.startSweeps({ intervalMs: INTERVAL });
    for (const sub of ['set', 'off', 'status', 'preview'] as const) {
      await h.run(digest(sub, sub === 'set' ? { dia: 0, hora: 9 } : {}, { permissions: MEMBER_PERMS }));
      expect(lastEmbed(h).description).toMatch(/Manage Server/);
    }
    await h.run(digest('set', { dia: 0, hora: 9 }, { permissions: MEMBER_PERMS, locale: 'es-ES' }));
    expect(lastEmbed(h).description).toMatch(/Gestionar servidor/);
    expect((await sweeps.store.get(GUILD_ID)).digest).toBeUndefined();
  });

  botTest('a bot without health checks says so', async ({ bot: h }) => {
    install(h);
    await h.run(digest('status'));
    expect(lastEmbed(h).description).toBe('Health checks are off in this bot.');
  });
});

describe('/feedbot audit-channel status: the health checks', () => {
  botTest.override({ harness: { now } });

  botTest('before any check, the next one due; after a sweep, when it ran, what it found, the next one (en, es)', async ({ bot: h }) => {
    clock = SUNDAY_NOON;
    install(h);
    await setAuditChannel(h);
    const sweeps = await h.startSweeps({ intervalMs: INTERVAL });
    const field = () => lastEmbed(h).fields?.find((f) => f.name === 'Health checks' || f.name === 'Revisiones de salud');

    await h.run(grouped('audit-channel', 'status'));
    const nextDue = sweeps.scheduler.nextDue(GUILD_ID, clock);
    expect(nextDue).toBeGreaterThan(clock);
    expect(nextDue).toBeLessThanOrEqual(clock + INTERVAL);
    expect(field()).toEqual({ name: 'Health checks', value: `No check has run yet. The next one is due ${ts(nextDue, 'R')}.` });

    // A whole interval later every guild's slot has come: the scheduler sweeps it (one GET /feeds).
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, feeds(true), { headers: rl() });
    clock += INTERVAL;
    await sweeps.scheduler.tick();
    await sweeps.scheduler.idle();
    const ranAt = clock;
    expect((await sweeps.store.get(GUILD_ID)).last).toMatchObject({ at: ranAt, result: 'ok', feeds: 2 });

    clock += 5_000;
    const next = sweeps.scheduler.nextDue(GUILD_ID, clock);
    await h.run(grouped('audit-channel', 'status'));
    expect(field()).toEqual({ name: 'Health checks', value: `Last check ${ts(ranAt, 'R')}: 2 feeds, 1 with a warning, nothing new posted. Next one due ${ts(next, 'R')}.` });

    // A refused key: what the last check found, in Spanish.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(401, { error: 'unauthorized', mensaje: 'Clave revocada' }, { headers: rl() });
    clock += INTERVAL;
    await sweeps.scheduler.tick();
    await sweeps.scheduler.idle();
    await h.audit.flush();
    const refusedAt = clock;
    await h.run(grouped('audit-channel', 'status', {}, es));
    expect(field()).toEqual({
      name: 'Revisiones de salud',
      value: `Última revisión ${ts(refusedAt, 'R')}: la API rechazó la clave (401). La próxima toca ${ts(sweeps.scheduler.nextDue(GUILD_ID, clock), 'R')}.`,
    });
  });

  botTest('no field without an audit channel, nor when the bot runs no sweeps', async ({ bot: h }) => {
    install(h);
    await setAuditChannel(h);
    await h.run(grouped('audit-channel', 'status'));
    expect(lastEmbed(h).fields ?? []).toEqual([]);
    await h.startSweeps({ intervalMs: INTERVAL });
    await h.settings.update(GUILD_ID, ({ auditChannelId: _gone, ...s }) => s);
    await h.run(grouped('audit-channel', 'status'));
    expect(lastEmbed(h).fields ?? []).toEqual([]);
  });
});
