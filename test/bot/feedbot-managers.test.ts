/**
 * /feedbot managers add | remove | list, and what a feed-manager role allows at run time: creating
 * and deleting feeds (re-checked when Delete is pressed), never the key nor /feedbot itself.
 */
import { describe, expect, vi } from 'vitest';
import { ApplicationCommandOptionType, GuildMember, MessageFlags, type Client } from 'discord.js';
import type { APIChatInputApplicationCommandInteraction, APIRole } from 'discord-api-types/v10';
import { MAX_MANAGER_ROLES } from '../../src/settings/schema.js';
import { GUILD_ID, MEMBER_ID, MEMBER_PERMS, buttonPress, chatInput, snowflake, type Invoker } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';

type Body = {
  type: number;
  data: {
    flags?: number;
    allowed_mentions?: unknown;
    embeds: { title?: string; description?: string; fields?: { name: string; value: string }[]; footer?: { text: string } }[];
    components?: { components: { custom_id: string }[] }[];
  };
};
const body = (h: BotHarness, i: number) => h.discord.callbacks()[i]!.body as Body;
const lastBody = (h: BotHarness) => h.discord.callbacks().at(-1)!.body as Body;
const lastText = (h: BotHarness) => lastBody(h).data.embeds[0]!.description;

const MANAGER_ROLE = '1500000000000000001';
const OTHER_ROLE = '1500000000000000002';
/** A member without Manage Server who has the feed-manager role. */
const roleHolder = (extra: Invoker = {}): Invoker => ({ userId: MEMBER_ID, permissions: MEMBER_PERMS, roles: [MANAGER_ROLE], ...extra });

function apiRole(id: string, overrides: Partial<APIRole> = {}): APIRole {
  return { id, name: `role-${id.slice(-4)}`, color: 0, hoist: false, position: 1, permissions: '0', managed: false, mentionable: false, flags: 0, ...overrides } as APIRole;
}

/** `/feedbot managers <sub> [rol]`: a grouped subcommand with a role option, resolved as Discord sends it. */
function managers(sub: 'add' | 'remove' | 'list', role?: APIRole, invoker: Invoker = {}): APIChatInputApplicationCommandInteraction {
  const raw = chatInput('feedbot', undefined, {}, invoker);
  const options = role ? [{ name: 'rol', type: ApplicationCommandOptionType.Role, value: role.id }] : [];
  raw.data.options = [{ name: 'managers', type: ApplicationCommandOptionType.SubcommandGroup, options: [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options }] }] as typeof raw.data.options;
  if (role) raw.data.resolved = { roles: { [role.id]: role } };
  return raw;
}

const storedRoles = async (h: BotHarness) => (await h.settings.get(GUILD_ID)).managerRoleIds;
const created = { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };
const createOptions = { cuenta: 'nasa', canal: { channel: { id: '1300000000000000009', name: 'space' } }, tipos: 'post' };

describe('/feedbot managers', () => {
  botTest('adds, lists and removes a role, privately, with mentions that ping nobody', async ({ bot: h }) => {
    await h.run(managers('add', apiRole(MANAGER_ROLE)));
    const added = body(h, 0);
    expect(added.data.flags).toBe(MessageFlags.Ephemeral);
    expect(added.data.allowed_mentions).toEqual({ parse: [] });
    expect(added.data.embeds[0]).toMatchObject({ title: 'Feed-manager role added', description: `Members with <@&${MANAGER_ROLE}> can now create and delete feeds.` });
    expect(await storedRoles(h)).toEqual([MANAGER_ROLE]);

    await h.run(managers('add', apiRole(OTHER_ROLE)));
    await h.run(managers('list'));
    const listed = body(h, 2);
    expect(listed.data.flags).toBe(MessageFlags.Ephemeral);
    expect(listed.data.allowed_mentions).toEqual({ parse: [] });
    expect(listed.data.embeds[0]).toMatchObject({
      title: 'Feed managers',
      description: `Members with one of these roles can create and delete feeds:\n• <@&${MANAGER_ROLE}>\n• <@&${OTHER_ROLE}>`,
      footer: { text: `2 of ${MAX_MANAGER_ROLES} roles` },
    });
    const allows = listed.data.embeds[0]!.fields![0]!;
    expect(allows.name).toBe('What they allow');
    expect(allows.value).toMatch(/^Creating and deleting feeds .*Not the API key \(`\/apikey`\) nor feedbot's settings such as the audit channel/);

    await h.run(managers('remove', apiRole(MANAGER_ROLE)));
    expect(body(h, 3).data.embeds[0]).toMatchObject({ title: 'Feed-manager role removed', description: expect.stringContaining(`<@&${MANAGER_ROLE}> can no longer`) as unknown });
    expect(body(h, 3).data.allowed_mentions).toEqual({ parse: [] });
    expect(await storedRoles(h)).toEqual([OTHER_ROLE]);
  });

  botTest('lists no role with what that means, in Spanish', async ({ bot: h }) => {
    await h.run(managers('list', undefined, { locale: 'es-ES' }));
    expect(body(h, 0).data.embeds[0]).toMatchObject({
      title: 'Gestores de feeds',
      description: expect.stringMatching(/^Todavía no hay ningún rol de gestor de feeds: solo los miembros con \*\*Gestionar servidor\*\*.*`\/feedbot gestores agregar`\.$/) as unknown,
      fields: [{ name: 'Qué permiten', value: expect.stringContaining('No la clave de API (`/clave-api`)') as unknown }],
    });
    await h.run(managers('add', apiRole(MANAGER_ROLE), { locale: 'es-419' }));
    expect(body(h, 1).data.embeds[0]!.description).toBe(`Los miembros con <@&${MANAGER_ROLE}> ya pueden crear y eliminar feeds.`);
  });

  botTest.for([
    ['@everyone', () => apiRole(GUILD_ID, { name: '@everyone' }), '@everyone cannot be a feed-manager role: pick a role you give to trusted members.'],
    ['a bot or integration role', () => apiRole(OTHER_ROLE, { managed: true }), `<@&${OTHER_ROLE}> is managed by a bot or an integration`],
    ['a role already there', () => apiRole(MANAGER_ROLE), `<@&${MANAGER_ROLE}> is already a feed-manager role.`],
  ] as const)('refuses %s, storing nothing', async ([, role, message], { bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGER_ROLE] }));
    await h.run(managers('add', role()));
    expect(lastBody(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(lastText(h)).toContain(message);
    expect(await storedRoles(h)).toEqual([MANAGER_ROLE]);
  });

  botTest(`refuses a role past ${MAX_MANAGER_ROLES}, and removing a role that is not one`, async ({ bot: h }) => {
    const full = Array.from({ length: MAX_MANAGER_ROLES }, () => snowflake());
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: full }));
    await h.run(managers('add', apiRole(MANAGER_ROLE), { locale: 'es-ES' }));
    expect(lastText(h)).toBe(`Este servidor ya tiene ${MAX_MANAGER_ROLES} roles de gestor de feeds, el máximo permitido. Quita uno antes con \`/feedbot gestores quitar\`.`);
    await h.run(managers('remove', apiRole(MANAGER_ROLE)));
    expect(lastText(h)).toBe(`<@&${MANAGER_ROLE}> is not a feed-manager role. \`/feedbot managers list\` shows them.`);
    expect(await storedRoles(h)).toEqual(full);
  });

  botTest('is Manage Server only: a feed-manager role opens neither /feedbot nor /apikey', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGER_ROLE] }));
    await h.run(managers('add', apiRole(OTHER_ROLE), roleHolder()));
    expect(lastBody(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(lastText(h)).toBe("You need the **Manage Server** permission to change feedbot's settings in this server.");
    await h.run(managers('list', undefined, roleHolder({ locale: 'es-ES' })));
    expect(lastText(h)).toBe('Necesitas el permiso **Gestionar servidor** para cambiar la configuración de feedbot en este servidor.');
    await h.run(chatInput('apikey', 'set', {}, roleHolder()));
    expect(lastBody(h).type).toBe(4);
    expect(lastText(h)).toBe('You need the **Manage Server** permission to manage the API key.');
    await h.run(chatInput('apikey', 'remove', {}, roleHolder()));
    expect(lastText(h)).toBe('You need the **Manage Server** permission to manage the API key.');
    expect(await h.keys.get(GUILD_ID)).toBeDefined();
    expect(await storedRoles(h)).toEqual([MANAGER_ROLE]);
  });
});

describe('what a feed-manager role allows', () => {
  botTest('a member with the role creates a feed; the audit event names the role', async ({ bot: h }) => {
    await h.run(managers('add', apiRole(MANAGER_ROLE)));
    const record = vi.spyOn(h.audit, 'record');
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', createOptions, roleHolder({ roles: [OTHER_ROLE, MANAGER_ROLE] })));
    expect(lastBody(h).data.embeds[0]!.title).toBe('Feed created');
    expect(record).toHaveBeenCalledWith(GUILD_ID, expect.objectContaining({ kind: 'feedCreated', actor: { userId: MEMBER_ID, viaRoleId: MANAGER_ROLE } }), 'en-US');
  });

  botTest('a member without one is refused, told that a feed-manager role would do', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGER_ROLE] }));
    await h.run(chatInput('feed', 'create', createOptions, roleHolder({ roles: [OTHER_ROLE] })));
    expect(lastBody(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(lastText(h)).toBe('You need the **Manage Server** permission or one of the feed-manager roles to create feeds.');
    await h.run(chatInput('feed', 'delete', { id: 1 }, roleHolder({ roles: [], locale: 'es-ES' })));
    expect(lastText(h)).toBe('Necesitas el permiso **Gestionar servidor** o uno de los roles de gestor de feeds para eliminar feeds.');
    expect(h.logs.filter((l) => l.msg === 'interaction').map((l) => l.outcome)).toEqual(['forbidden_member', 'forbidden_member']);
  });

  botTest('a member with the role asks and deletes a feed', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGER_ROLE] }));
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }, roleHolder()));
    const yes = lastBody(h).data.components![0]!.components[0]!;
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(yes.custom_id, roleHolder(), MessageFlags.Ephemeral));
    expect(lastBody(h).data.embeds[0]!.description).toBe('Feed #1 was deleted.');
  });

  botTest.for(['removed from the managers', 'taken from the member'] as const)(
    'the role %s between the question and the press: Delete is refused',
    async (how, { bot: h }) => {
      await h.run(managers('add', apiRole(MANAGER_ROLE)));
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
      await h.run(chatInput('feed', 'delete', { id: 1 }, roleHolder()));
      const yes = lastBody(h).data.components![0]!.components[0]!;
      if (how === 'removed from the managers') await h.run(managers('remove', apiRole(MANAGER_ROLE)));
      // No DELETE is mocked: a request would fail the test (MockAgent refuses unknown calls).
      await h.run(buttonPress(yes.custom_id, roleHolder(how === 'taken from the member' ? { roles: [] } : {}), MessageFlags.Ephemeral));
      expect(lastBody(h).data.flags).toBe(MessageFlags.Ephemeral);
      expect(lastText(h)).toBe(
        how === 'removed from the managers'
          ? 'You need the **Manage Server** permission to delete feeds.'
          : 'You need the **Manage Server** permission or one of the feed-manager roles to delete feeds.',
      );
    },
  );

  botTest('in a guild the gateway cached, the member object lists @everyone: it never counts as a manager role', async ({ bot: h }) => {
    cacheGuildWithRoles(h.discord.client, [GUILD_ID, MANAGER_ROLE, OTHER_ROLE]);
    const probe = h.discord.dispatch(chatInput('feedbot', undefined, {}, roleHolder()));
    expect(probe.member).toBeInstanceOf(GuildMember);
    expect([...(probe.member as GuildMember).roles.cache.keys()].sort()).toEqual([GUILD_ID, MANAGER_ROLE].sort());
    // Stored behind the command's back (it refuses @everyone): must still allow nobody.
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [GUILD_ID] }));
    await h.run(chatInput('feed', 'create', createOptions, roleHolder({ roles: [OTHER_ROLE] })));
    expect(lastText(h)).toMatch(/^You need the \*\*Manage Server\*\* permission or one of the feed-manager roles/);

    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: [MANAGER_ROLE] }));
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', createOptions, roleHolder()));
    expect(lastBody(h).data.embeds[0]!.title).toBe('Feed created');
  });
});

/** The guild as the Guilds intent loads it, then its roles (discord.js's role-create action): members become GuildMembers. */
function cacheGuildWithRoles(client: Client, roleIds: readonly string[]): void {
  knowGuild(client, GUILD_ID, []);
  const actions = (client as unknown as { actions: { GuildRoleCreate: { handle(data: unknown): unknown } } }).actions;
  for (const id of roleIds) actions.GuildRoleCreate.handle({ guild_id: GUILD_ID, role: apiRole(id, id === GUILD_ID ? { name: '@everyone', position: 0 } : {}) });
}
