/**
 * /feedbot audit-channel and the posts it receives, through the router with real discord.js
 * objects, over both transports: over the gateway the bot's permissions come from the cache the
 * Guilds intent fills; over HTTP (no cache) from Discord's REST API (the recorder answers).
 */
import { describe, expect } from 'vitest';
import { ApplicationCommandOptionType, MessageFlags, OverwriteType, PermissionFlagsBits as P, type APIApplicationCommandInteractionDataOption } from 'discord.js';
import { keyFingerprint } from '../../src/audit/fingerprint.js';
import { ADMIN_ID, GUILD_ID, MEMBER_PERMS, chatInput, modalSubmit, type Invoker, type OptionValue } from '../helpers/discord.js';
import { TEST_KEY, botTest, rl, sampleStats, type BotHarness } from '../helpers/bot.js';
import { AUDIT_CHANNEL_ID, BOT_ROLE_ID, answerRest, auditPosts, discordError, loadIntoCache, type AuditPostBody, type PostAnswer, type World } from '../audit/discord-world.js';

type Embed = { title?: string; description?: string; fields?: { name: string; value: string }[] };
type Body = { type: number; data: { flags?: number; embeds: Embed[] } };
const answer = (h: BotHarness, i = 0) => h.discord.callbacks()[i]!.body as Body;
const lastText = (h: BotHarness) => {
  const edit = h.discord.edits().at(-1)?.body as Body['data'] | undefined;
  return (edit ?? answer(h, h.discord.callbacks().length - 1).data).embeds[0]!;
};

const NO_EMBEDS_ID = '1300000000000000778';
const NEW_KEY = 'fbk_NewKeyFromTheDashboard_QX81';
const LATER_KEY = 'fbk_AnotherRegeneratedKey_ZZ42';

/** The bot may post in #audit (its role is allowed), not in #no-embeds (@everyone denied there). */
const world: World = {
  guildId: GUILD_ID,
  everyone: P.ViewChannel | P.SendMessages | P.EmbedLinks,
  botRole: 0n,
  channels: [
    {
      id: AUDIT_CHANNEL_ID,
      name: 'audit',
      overwrites: [
        { id: GUILD_ID, type: OverwriteType.Role, deny: P.SendMessages },
        { id: BOT_ROLE_ID, type: OverwriteType.Role, allow: P.SendMessages },
      ],
    },
    { id: NO_EMBEDS_ID, name: 'no-embeds', overwrites: [{ id: GUILD_ID, type: OverwriteType.Role, deny: P.SendMessages | P.EmbedLinks }] },
  ],
};

/** The guild as each transport knows it: the gateway's cache, or Discord's REST answers. */
function install(h: BotHarness, post?: PostAnswer) {
  if (h.transport === 'gateway') loadIntoCache(h.discord.client, world);
  answerRest(h.discord.recorder, world, { post });
}

/** `/feedbot audit-channel <sub>`: the payload builder's subcommand, wrapped in its group. */
function audit(sub: string, options: Record<string, OptionValue> = {}, invoker: Invoker = {}) {
  const raw = chatInput('feedbot', sub, options, invoker);
  const inner = raw.data.options as APIApplicationCommandInteractionDataOption[];
  raw.data.options = [{ name: 'audit-channel', type: ApplicationCommandOptionType.SubcommandGroup, options: inner } as APIApplicationCommandInteractionDataOption];
  return raw;
}
const channel = (id: string, name: string) => ({ channel: { id, name } });
const setAuditChannel = (h: BotHarness) => h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID }));
/** Every audit embed posted, oldest first (events that pile up share a message). */
const posts = (h: BotHarness) => auditPosts(h.discord.recorder).flatMap((c) => (c.body as AuditPostBody).embeds);
const discordGets = (h: BotHarness) => h.discord.calls.filter((c) => c.method === 'GET').map((c) => c.path);

describe('/feedbot audit-channel set', () => {
  botTest('says exactly which permissions the bot lacks there, and stores nothing', async ({ bot: h }) => {
    install(h);
    await h.run(audit('set', { canal: channel(NO_EMBEDS_ID, 'no-embeds') }));
    expect(answer(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(lastText(h).description).toBe(
      `I cannot post in <#${NO_EMBEDS_ID}>: I am missing **Send Messages**, **Embed Links** there. Give the bot these permissions in that channel (or its category) and run the command again.`,
    );
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();
    // Discord is asked whose channel it is (the cache holds what the payload resolved); the
    // permissions come from the cache over the gateway, from Discord's REST API over HTTP, where the
    // channel read once serves both the guild check and its permission overwrites.
    expect(discordGets(h).sort()).toEqual(
      h.transport === 'gateway'
        ? [`/channels/${NO_EMBEDS_ID}`]
        : [`/channels/${NO_EMBEDS_ID}`, `/guilds/${GUILD_ID}/members/1200000000000000001`, `/guilds/${GUILD_ID}/roles`, '/users/@me'],
    );
  });

  botTest('in Spanish', async ({ bot: h }) => {
    install(h);
    await h.run(audit('set', { canal: channel(NO_EMBEDS_ID, 'no-embeds') }, { locale: 'es-ES' }));
    expect(lastText(h).description).toMatch(/^No puedo publicar en <#\d+>: me faltan estos permisos ahí: \*\*Enviar mensajes\*\*, \*\*Insertar enlaces\*\*\./);
  });

  botTest('sets a channel the bot can post in, clearing a failure kept for the old one', async ({ bot: h }) => {
    install(h);
    await h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: NO_EMBEDS_ID, auditFailure: { at: 1, reason: 'missing_permissions', channelId: NO_EMBEDS_ID, reported: false } }));
    await h.run(audit('set', { canal: channel(AUDIT_CHANNEL_ID, 'audit') }));
    expect(lastText(h)).toMatchObject({ title: 'Audit channel', description: expect.stringMatching(new RegExp(`are posted in <#${AUDIT_CHANNEL_ID}>\\.$`)) });
    const stored = await h.settings.get(GUILD_ID);
    expect(stored.auditChannelId).toBe(AUDIT_CHANNEL_ID);
    expect(stored.auditFailure).toBeUndefined();
  });

  botTest('a lookup Discord refuses changes nothing and says so', async ({ bot: h }) => {
    // No cache and a refusal: both transports take the REST path and get it.
    h.discord.recorder.respond = (call) => (call.method === 'GET' ? discordError(403, 50001, 'Missing Access') : undefined);
    await h.run(audit('set', { canal: channel(AUDIT_CHANNEL_ID, 'audit') }));
    expect(lastText(h).description).toMatch(/^Discord did not tell me the bot's permissions in <#\d+>, so nothing was changed\./);
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();
  });

  botTest('is for Manage Server only (feed-manager roles do not extend to settings)', async ({ bot: h }) => {
    await h.settings.update(GUILD_ID, (s) => ({ ...s, managerRoleIds: ['1500000000000000099'] }));
    await h.run(audit('set', { canal: channel(AUDIT_CHANNEL_ID, 'audit') }, { permissions: MEMBER_PERMS, roles: ['1500000000000000099'] }));
    expect(lastText(h).description).toMatch(/Manage Server/);
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();
  });
});

describe('/feedbot audit-channel off and status', () => {
  botTest('status without a channel, then with one; off turns it off once', async ({ bot: h }) => {
    await h.run(audit('status'));
    expect(lastText(h).description).toBe('No audit channel is set. An admin (Manage Server) can set one with `/feedbot audit-channel set`.');
    await setAuditChannel(h);
    await h.run(audit('status', {}, { locale: 'es-419' }));
    expect(lastText(h)).toEqual({ title: 'Canal de auditoría', color: 0x5865f2, description: `Los mensajes de auditoría se publican en <#${AUDIT_CHANNEL_ID}>.` });
    await h.run(audit('off'));
    expect(lastText(h).description).toBe(`The audit channel is off: nothing more is posted in <#${AUDIT_CHANNEL_ID}>.`);
    expect((await h.settings.get(GUILD_ID)).auditChannelId).toBeUndefined();
    await h.run(audit('off'));
    expect(lastText(h).description).toBe('There was no audit channel to turn off.');
  });
});

describe('posts in the audit channel', () => {
  botTest('a feed created lands there: who, which feed, where it forwards', async ({ bot: h }) => {
    install(h);
    await setAuditChannel(h);
    const created = { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: channel('1300000000000000009', 'space'), tipos: 'post+story' }));
    await h.audit.flush();
    expect(posts(h)).toMatchObject([
      {
        title: 'Feed #7 created',
        fields: [
          { name: 'By', value: `<@${ADMIN_ID}>` },
          { name: 'Feed', value: '`#7` @nasa' },
          { name: 'Forwards to', value: '<#1300000000000000009>' },
          { name: 'Content', value: 'Posts + Stories' },
        ],
      },
    ]);
    expect((auditPosts(h.discord.recorder)[0]!.body as AuditPostBody).allowed_mentions).toEqual({ parse: [] });
  });

  botTest('speak the language of the admin who chose the channel, whoever causes the event', async ({ bot: h }) => {
    install(h);
    await h.run(audit('set', { canal: channel(AUDIT_CHANNEL_ID, 'audit') }, { locale: 'es-ES' }));
    h.audit.record(GUILD_ID, { kind: 'feedDeleted', actor: { userId: ADMIN_ID }, feed: { id: 7, cuenta: 'nasa' } }, 'en-US');
    await h.audit.flush();
    expect(posts(h).map((p) => p.title)).toEqual(['Feed #7 eliminado']);
    await h.run(audit('off'));
    expect((await h.settings.get(GUILD_ID)).auditLocale).toBeUndefined();
  });

  botTest('turning the posts on dates them; moving them to another channel keeps that date; off clears it', async ({ bot: h }) => {
    install(h);
    await h.run(audit('set', { canal: channel(AUDIT_CHANNEL_ID, 'audit') }));
    const since = (await h.settings.get(GUILD_ID)).auditSince;
    expect(since).toEqual(expect.any(Number));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await h.run(audit('set', { canal: channel(AUDIT_CHANNEL_ID, 'audit') }));
    expect((await h.settings.get(GUILD_ID)).auditSince).toBe(since);
    await h.run(audit('off'));
    expect((await h.settings.get(GUILD_ID)).auditSince).toBeUndefined();
  });

  botTest('a feed deleted through a manager role names the role, in the language given', async ({ bot: h }) => {
    await setAuditChannel(h);
    h.audit.record(GUILD_ID, { kind: 'feedDeleted', actor: { userId: ADMIN_ID, viaRoleId: '1500000000000000099' }, feed: { id: 7, cuenta: 'nasa', canalId: '1300000000000000009' } }, 'es-ES');
    await h.audit.flush();
    expect(posts(h)[0]!.title).toBe('Feed #7 eliminado');
    expect(posts(h)[0]!.fields![0]).toEqual({ name: 'Por', value: `<@${ADMIN_ID}>, con permiso gracias al rol de gestor de feeds <@&1500000000000000099>`, inline: false });
  });

  botTest('key replaced, removed, set: masked, never the full key', async ({ bot: h }) => {
    await setAuditChannel(h);
    const probe = () => {
      for (const [path, method, reply] of [['/v1/feeds', 'GET', { feeds: [], total: 0, plan: 'server' }], ['/v1/stats', 'GET', sampleStats()]] as const) {
        h.api.intercept({ path, method, headers: { authorization: `Bearer ${NEW_KEY}` } }).reply(200, reply, { headers: rl() });
      }
      h.api.intercept({ path: '/v1/feeds', method: 'POST', body: '{}' }).reply(400, { error: 'x' }, { headers: rl() });
    };
    probe();
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    await h.run(chatInput('apikey', 'remove'));
    probe();
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }, { locale: 'es-ES' }));
    await h.audit.flush();
    expect(posts(h)).toMatchObject([
      { title: 'API key replaced', fields: [{ name: 'Key', value: '`••••QX81`' }, { name: 'By', value: `<@${ADMIN_ID}>` }] },
      { title: 'API key removed', fields: [{ name: 'Key', value: '`••••QX81`' }, { name: 'By', value: `<@${ADMIN_ID}>` }] },
      { title: 'Clave de API establecida', fields: [{ name: 'Clave', value: '`••••QX81`' }, { name: 'Por', value: `<@${ADMIN_ID}>` }] },
    ]);
    for (const key of [NEW_KEY, TEST_KEY]) {
      expect(JSON.stringify(h.discord.calls)).not.toContain(key);
      expect(h.rawLogs.join('')).not.toContain(key);
    }
  });
});

describe('the key stopped working', () => {
  const listAnswers401 = (h: BotHarness, times: number) => h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(401, { error: 'invalid key' }, { headers: rl() }).times(times);

  botTest('is posted once per key: at the first 401, and again for a later key', async ({ bot: h }) => {
    await setAuditChannel(h);
    listAnswers401(h, 3);
    await h.run(chatInput('feed', 'list'));
    await h.run(chatInput('feed', 'list'));
    await h.audit.flush();
    expect(posts(h)).toEqual([
      expect.objectContaining({ title: 'The API key stopped working', description: expect.stringContaining('the key `••••3Kq2` (401)') }),
    ]);
    // The user still reads why their command failed.
    expect(lastText(h).description).toMatch(/^The API key of this server is invalid or was regenerated\./);
    expect((await h.settings.get(GUILD_ID)).keyStoppedNotified).toBe(keyFingerprint(TEST_KEY));

    await h.setKey(GUILD_ID, LATER_KEY);
    await h.run(chatInput('feed', 'list', {}, { locale: 'es-ES' }));
    await h.audit.flush();
    expect(posts(h).map((e) => e.title)).toEqual(['The API key stopped working', 'La clave de API dejó de funcionar']);
    expect(posts(h)[1]!.description).toContain('`••••ZZ42`');
    for (const key of [TEST_KEY, LATER_KEY]) {
      expect(JSON.stringify(h.discord.calls)).not.toContain(key);
      expect(h.rawLogs.join('')).not.toContain(key);
    }
  });

  botTest('without an audit channel nothing is posted or remembered', async ({ bot: h }) => {
    listAnswers401(h, 1);
    await h.run(chatInput('feed', 'list'));
    await h.audit.flush();
    expect(auditPosts(h.discord.recorder)).toEqual([]);
    expect((await h.settings.get(GUILD_ID)).keyStoppedNotified).toBeUndefined();
  });
});

describe('a post that fails', () => {
  botTest('never fails the command, is logged once, and status reports it once', async ({ bot: h }) => {
    install(h, () => discordError(404, 10003, 'Unknown Channel'));
    await setAuditChannel(h);
    await h.run(chatInput('apikey', 'remove'));
    await h.audit.flush();
    expect(lastText(h).description).toMatch(/^The API key was removed\./);
    expect(h.logs.find((l) => l.msg === 'interaction')).toMatchObject({ outcome: 'ok' });
    const warnings = h.logs.filter((l) => l.msg === 'audit post failed');
    expect(warnings).toEqual([expect.objectContaining({ reason: 'unknown_channel', code: 10003, ref: expect.stringMatching(/^[A-Z2-9]{8}$/) })]);

    await h.run(audit('status'));
    expect(lastText(h).fields).toEqual([
      { name: 'Last failed post', value: expect.stringContaining(`the channel no longer exists. Choose another one with \`/feedbot audit-channel set\`.\nReference: \`${String(warnings[0]!.ref)}\``) },
    ]);
    await h.run(audit('status'));
    expect(lastText(h).fields).toBeUndefined();
    expect((await h.settings.get(GUILD_ID)).auditFailure?.reported).toBe(true);
  });
});
