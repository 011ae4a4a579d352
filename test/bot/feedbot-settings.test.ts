/**
 * /feedbot settings: one private panel (Manage Server) with the key's state, the audit channel,
 * the manager roles and the threshold, and under it an audit channel select, a role select, a
 * threshold select and Turn audit off / Set key / Remove key. Each change applies on selection
 * through the slash subcommands' own functions, is audited as they are, and redraws the panel in
 * place (type 7); refusals are private and change nothing. Gateway and HTTP projects.
 */
import { describe, expect, vi } from 'vitest';
import { MessageFlags, PermissionFlagsBits as P, OverwriteType, type APIMessageComponentSelectMenuInteraction } from 'discord.js';
import { ADMIN_ID, GUILD_ID, MEMBER_ID, MEMBER_PERMS, buttonPress, channelSelectPress, chatInput, field, modalSubmitted, roleSelectPress, stringSelectPress } from '../helpers/discord.js';
import { TEST_KEY, botTest, rl, sampleStats, type BotHarness } from '../helpers/bot.js';
import { AUDIT_CHANNEL_ID, BOT_ROLE_ID, answerRest, loadIntoCache, type World } from '../audit/discord-world.js';
import { accepted, componentCount } from './forms-kit.js';

const NO_EMBEDS_ID = '1300000000000000778';
const ROLE = { id: '1500000000000000042', name: 'Editors' };
const NEW_KEY = 'fbk_NewKeyFromTheDashboard_QX81';
const world: World = {
  guildId: GUILD_ID,
  everyone: P.ViewChannel | P.SendMessages | P.EmbedLinks,
  botRole: 0n,
  roles: [ROLE],
  channels: [
    { id: AUDIT_CHANNEL_ID, name: 'audit', overwrites: [{ id: BOT_ROLE_ID, type: OverwriteType.Role, allow: P.SendMessages }] },
    { id: NO_EMBEDS_ID, name: 'no-embeds', overwrites: [{ id: GUILD_ID, type: OverwriteType.Role, deny: P.SendMessages | P.EmbedLinks }] },
  ],
};

type Component = { type: number; custom_id: string; label?: string; disabled?: boolean; default_values?: { type: string; id: string }[]; options?: { label: string; value: string; default?: boolean }[]; min_values?: number; max_values?: number; channel_types?: number[] };
type Embed = { title?: string; description?: string; fields?: { name: string; value: string }[] };
type Body = { type: number; data: { flags?: number; embeds: Embed[]; components: { components: Component[] }[] } };

const last = (h: BotHarness) => accepted(h.discord.callbacks().at(-1)!) as unknown as Body;
/** The panel as last drawn: the callback's, or the edit after a deferral. */
const panel = (h: BotHarness): Body['data'] => {
  const call = h.discord.callbacks().at(-1)!.body as Body;
  return call.type === 6 ? (h.discord.edits().at(-1)!.body as Body['data']) : call.data;
};
const ids = (b: Body['data']) => b.components.flatMap((r) => r.components.map((c) => c.custom_id));
const fieldValue = (b: Body['data'], name: string) => b.embeds[0]!.fields!.find((f) => f.name === name)?.value;

async function openPanel(h: BotHarness, locale = 'en-US'): Promise<Body> {
  if (h.transport === 'gateway') loadIntoCache(h.discord.client, world);
  answerRest(h.discord.recorder, world);
  await h.run(chatInput('feedbot', 'settings', {}, { locale }));
  return last(h);
}

describe('/feedbot settings', () => {
  botTest('a private panel: the key (masked, who set it, scopes), audit channel, managers, threshold; 3 selects and 3 buttons', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, managerRoleIds: [ROLE.id], staleAfterDays: 14 }));
    const b = await openPanel(h);
    expect(b.type).toBe(4);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.title).toBe('feedbot settings');
    expect(fieldValue(b.data, 'API key')).toMatch(new RegExp(`^\`••••${TEST_KEY.slice(-4)}\` · set by <@${ADMIN_ID}> <t:\\d+:R>\\n`));
    expect(fieldValue(b.data, 'API key')).toContain('feeds:write');
    expect(JSON.stringify(b)).not.toContain(TEST_KEY);
    expect(fieldValue(b.data, 'Audit channel')).toBe(`<#${AUDIT_CHANNEL_ID}>`);
    expect(fieldValue(b.data, 'Feed-manager roles')).toBe(`<@&${ROLE.id}>`);
    expect(fieldValue(b.data, 'Health threshold')).toBe('14 days without a post');
    expect(componentCount(b.data.components)).toEqual({ rows: 4, components: 6 });
    const [audit, roles, days, ...buttons] = b.data.components.flatMap((r) => r.components);
    expect(audit).toMatchObject({ type: 8, channel_types: [0, 5], default_values: [{ type: 'channel', id: AUDIT_CHANNEL_ID }] });
    expect(roles).toMatchObject({ type: 6, min_values: 0, max_values: 25, default_values: [{ type: 'role', id: ROLE.id }] });
    expect(days!.options!.map((o) => o.value)).toEqual(['1', '3', '7', '14', '30', '60', '90', '180', '365']);
    expect(days!.options!.find((o) => o.default)?.value).toBe('14');
    expect(buttons.map((c) => [c.label, c.disabled ?? false])).toEqual([
      ['Turn audit off', false],
      ['Set key', false],
      ['Remove key', false],
    ]);
  });

  botTest('in Spanish, without a key or settings', async ({ bot: h }) => {
    await h.keys.delete(GUILD_ID);
    const b = await openPanel(h, 'es-ES');
    expect(b.data.embeds[0]!.title).toBe('Ajustes de feedbot');
    expect(fieldValue(b.data, 'Clave de API')).toBe('Aún no hay clave: pulsa **Poner clave**.');
    expect(fieldValue(b.data, 'Canal de auditoría')).toBe('Desactivado');
    expect(fieldValue(b.data, 'Umbral de salud')).toBe('7 días sin publicar');
    expect(b.data.components[3]!.components.map((c) => c.disabled ?? false)).toEqual([true, false, true]);
  });

  botTest('is for Manage Server only', async ({ bot: h }) => {
    await h.run(chatInput('feedbot', 'settings', {}, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.components ?? []).toEqual([]);
  });
});

describe('changes apply on selection and redraw the panel in place', () => {
  botTest('the audit channel: checked as `audit-channel set` checks it, then set; Turn audit off', async ({ bot: h }) => {
    const b = await openPanel(h);
    const [auditId, , , offId] = ids(b.data);
    await h.run(channelSelectPress(auditId!, [{ id: NO_EMBEDS_ID, name: 'no-embeds' }], {}, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.embeds[0]!.description).toMatch(/I am missing \*\*Send Messages\*\*, \*\*Embed Links\*\*/);
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();

    await h.run(channelSelectPress(auditId!, [{ id: AUDIT_CHANNEL_ID, name: 'audit' }], {}, MessageFlags.Ephemeral));
    expect(last(h).type).toBe(7);
    expect(last(h).data.embeds[0]!.description).toMatch(new RegExp(`^Audit messages now go to <#${AUDIT_CHANNEL_ID}>\\.`));
    expect(fieldValue(last(h).data, 'Audit channel')).toBe(`<#${AUDIT_CHANNEL_ID}>`);
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBe(AUDIT_CHANNEL_ID);

    await h.run(buttonPress(offId!, {}, MessageFlags.Ephemeral));
    expect(last(h).type).toBe(7);
    expect(fieldValue(last(h).data, 'Audit channel')).toBe('Off');
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();
  });

  botTest('the manager roles: replaced by the selection; @everyone and managed roles refused as /feedbot managers refuses them', async ({ bot: h }) => {
    const b = await openPanel(h);
    const rolesId = ids(b.data)[1]!;
    await h.run(roleSelectPress(rolesId, [ROLE], {}, MessageFlags.Ephemeral));
    expect(last(h).type).toBe(7);
    expect(last(h).data.embeds[0]!.description).toMatch(/^1 feed-manager role\./);
    expect(last(h).data.components[1]!.components[0]!.default_values).toEqual([{ type: 'role', id: ROLE.id }]);
    expect((await h.settings.get(GUILD_ID)).managerRoleIds).toEqual([ROLE.id]);

    await h.run(roleSelectPress(rolesId, [{ id: GUILD_ID, name: '@everyone' }], {}, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect(last(h).data.embeds[0]!.description).toBe('@everyone cannot be a feed-manager role: pick a role you give to trusted members.');

    const managed = roleSelectPress(rolesId, [{ id: '1500000000000000077', name: 'SomeBot' }], { locale: 'es-ES' }, MessageFlags.Ephemeral) as APIMessageComponentSelectMenuInteraction & {
      data: { resolved: { roles: Record<string, { managed: boolean }> } };
    };
    managed.data.resolved.roles['1500000000000000077']!.managed = true;
    await h.run(managed);
    expect(last(h).data.embeds[0]!.description).toMatch(/^<@&1500000000000000077> lo gestiona un bot o una integración/);
    expect((await h.settings.get(GUILD_ID)).managerRoleIds).toEqual([ROLE.id]);

    await h.run(roleSelectPress(rolesId, [], {}, MessageFlags.Ephemeral));
    expect(last(h).data.embeds[0]!.description).toMatch(/^No feed-manager role any more\./);
    expect((await h.settings.get(GUILD_ID)).managerRoleIds).toEqual([]);
  });

  botTest('forged choices change nothing: a role of another server, role ids without their resolved roles, a channel of another server', async ({ bot: h }) => {
    const b = await openPanel(h);
    const [auditId, rolesId] = ids(b.data);
    await h.run(roleSelectPress(rolesId!, [ROLE], {}, MessageFlags.Ephemeral));
    expect((await h.settings.get(GUILD_ID)).managerRoleIds).toEqual([ROLE.id]);

    await h.run(roleSelectPress(rolesId!, [{ id: '1500000000000000666', name: 'Elsewhere' }], {}, MessageFlags.Ephemeral));
    expect(last(h).data.embeds[0]!.description).toBe("That role is not one of this server's. Choose a role of this server.");
    // Values with no resolved data: discord.js would read "no role chosen" and clear the list.
    const bare = roleSelectPress(rolesId!, [ROLE], {}, MessageFlags.Ephemeral);
    delete (bare.data as { resolved?: unknown }).resolved;
    await h.run(bare);
    expect(last(h).data.embeds[0]!.description).toMatch(/^What Discord sent for this arrived incomplete, so nothing was done\./);
    // A resolved role nobody picked.
    const extra = roleSelectPress(rolesId!, [ROLE, { id: '1500000000000000667', name: 'Stowaway' }], {}, MessageFlags.Ephemeral);
    (extra.data as { values: string[] }).values = [ROLE.id];
    await h.run(extra);
    expect(last(h).data.embeds[0]!.description).toMatch(/^What Discord sent for this arrived incomplete/);
    expect((await h.settings.get(GUILD_ID)).managerRoleIds).toEqual([ROLE.id]);

    const world = h.discord.recorder.respond!;
    h.discord.recorder.respond = (call) =>
      call.method === 'GET' && call.path === '/channels/1300000000000000555' ? Response.json({ id: '1300000000000000555', type: 0, guild_id: '1100000000000000999' }) : world(call);
    await h.run(channelSelectPress(auditId!, [{ id: '1300000000000000555', name: 'theirs' }], {}, MessageFlags.Ephemeral));
    expect(last(h).data.embeds[0]!.description).toBe("That channel is not one of this server's. Choose a channel of this server.");
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();
  });

  botTest('the threshold', async ({ bot: h }) => {
    const b = await openPanel(h, 'es-ES');
    await h.run(stringSelectPress(ids(b.data)[2]!, ['30'], { locale: 'es-ES' }, MessageFlags.Ephemeral));
    expect(last(h).type).toBe(7);
    expect(last(h).data.embeds[0]!.description).toMatch(/^Ahora se marcan los feeds sin publicar desde hace 30 días\./);
    expect((await h.settings.get(GUILD_ID)).staleAfterDays).toBe(30);
    await h.run(stringSelectPress(ids(b.data)[2]!, ['0'], {}, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect((await h.settings.get(GUILD_ID)).staleAfterDays).toBe(30);
  });

  botTest("Set key opens /apikey set's form; its submit stores the key, is audited and redraws the panel", async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const b = await openPanel(h);
    const setKeyId = ids(b.data)[4]!;
    await h.run(buttonPress(setKeyId, {}, MessageFlags.Ephemeral));
    const modal = accepted(h.discord.callbacks().at(-1)!) as unknown as { type: number; data: { custom_id: string; components: { component: { custom_id: string } }[] } };
    expect(modal.type).toBe(9);
    expect(modal.data.custom_id).toBe(`feedbot:set-key-form:${ADMIN_ID}`);
    expect(modal.data.components[0]!.component.custom_id).toBe('key');

    for (const [path, method, reply] of [['/v1/feeds', 'GET', { feeds: [], total: 0, plan: 'server' }], ['/v1/stats', 'GET', sampleStats()]] as const) {
      h.api.intercept({ path, method, headers: { authorization: `Bearer ${NEW_KEY}` } }).reply(200, reply, { headers: rl() });
    }
    h.api.intercept({ path: '/v1/feeds', method: 'POST', body: '{}' }).reply(400, { error: 'x' }, { headers: rl() });
    await h.run(modalSubmitted(modal.data.custom_id, [field.text('key', NEW_KEY)], {}, { fromMessage: true }));
    expect(h.discord.callbacks().at(-1)!.body).toMatchObject({ type: 6 });
    const redrawn = panel(h);
    expect(redrawn.embeds[0]!.description).toMatch(/^API key `••••QX81` saved\./);
    expect(fieldValue(redrawn, 'API key')).toMatch(/^`••••QX81`/);
    expect((await h.keys.get(GUILD_ID))!.apiKey).toBe(NEW_KEY);
    expect(audit.mock.calls.map((c) => c[1])).toEqual([{ kind: 'keySet', actor: { userId: ADMIN_ID }, masked: '••••QX81', replaced: true }]);
    expect(JSON.stringify(h.discord.calls)).not.toContain(NEW_KEY);
  });

  botTest('Remove key asks first (in place); Cancel keeps it; Remove removes it, audited', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const b = await openPanel(h);
    const removeId = ids(b.data)[5]!;
    await h.run(buttonPress(removeId, {}, MessageFlags.Ephemeral));
    const question = last(h);
    expect(question.type).toBe(7);
    expect(question.data.embeds[0]!.description).toMatch(/^Remove the API key `••••/);
    const [yes, no] = question.data.components[0]!.components;
    await h.run(buttonPress(no!.custom_id, {}, MessageFlags.Ephemeral));
    expect(last(h).data.embeds[0]!.description).toMatch(/^The API key was kept\./);
    expect(await h.keys.get(GUILD_ID)).toBeDefined();

    await h.run(buttonPress(yes!.custom_id, {}, MessageFlags.Ephemeral));
    expect(last(h).type).toBe(7);
    expect(last(h).data.embeds[0]!.description).toMatch(/^API key removed\./);
    expect(fieldValue(last(h).data, 'API key')).toBe('No key yet: press **Set key**.');
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
    expect(audit.mock.calls.map((c) => (c[1] as { kind: string }).kind)).toEqual(['keyRemoved']);
  });

  botTest("someone else's panel, or an admin who lost Manage Server, is refused and changes nothing", async ({ bot: h }) => {
    const b = await openPanel(h);
    await h.run(stringSelectPress(ids(b.data)[2]!, ['30'], { userId: MEMBER_ID }, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    await h.run(stringSelectPress(ids(b.data)[2]!, ['30'], { permissions: MEMBER_PERMS }, MessageFlags.Ephemeral));
    expect(last(h)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral } });
    expect((await h.settings.get(GUILD_ID)).staleAfterDays).toBeUndefined();
  });
});
