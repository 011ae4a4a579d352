/**
 * End to end: the audit channel, a channel deleted in Discord, and feed managers — the
 * real bot process against the Discord emulator and the HTTPS sandbox, over the gateway and over
 * HTTP interactions, in English and in Spanish (each language in a guild of its own, the users'
 * locale es-ES for the Spanish run). Every check reads what Discord (the emulator) received and
 * what the feed API (the sandbox) holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIEmbed, APIMessage } from 'discord-api-types/v10';
import { ADMIN_USER_ID } from '@feedbot/playground';
import { Permission } from '@feedbot/discord-emulator';
import type { Lang } from '../../src/i18n/index.js';
import { CREW_USER_ID, LANGS, StoryStack, TRANSPORTS, inEachLanguage, storyGuild, text, titled } from './story-kit.js';

const titles = (embeds: APIEmbed[]) => embeds.map((e) => e.title);
const show = (embed: APIEmbed) => JSON.stringify(embed);

describe.each(TRANSPORTS)('audit channel, deleted channels, feed managers [%s]', (transport) => {
  const guilds = { en: storyGuild(1, 'en', 'Audit story (en)'), es: storyGuild(2, 'es', 'Audit story (es)') };
  /**
   * The deleted-channel story has guilds of its own: in HTTP mode the bot reuses a channel list it
   * fetched up to a minute ago (src/bot/channel-directory.ts, existenceTtlMs), so a deletion right
   * after another story's /feed delete there would go unnoticed for that minute.
   */
  const fresh = { en: storyGuild(3, 'en', 'Deleted channel story (en)'), es: storyGuild(4, 'es', 'Deleted channel story (es)') };
  let s: StoryStack;

  beforeAll(async () => {
    s = await StoryStack.start(transport, [...Object.values(guilds), ...Object.values(fresh)]);
  }, 90_000);

  afterAll(async () => {
    await s?.close();
  }, 30_000);

  /** The key each language's guild holds once the first story is over. */
  const keys = new Map<Lang, string>();
  /** The story's guild, its language and its audit channel. */
  const setting = (lang: Lang) => ({ g: guilds[lang], t: guilds[lang].t, audit: guilds[lang].channels.audit });

  // Each story runs in both languages at once, each in its own guild (inEachLanguage).
  it('the audit channel gets one embed per feed created or deleted and per key set, replaced, stopped and removed', () =>
    inEachLanguage(async (lang) => {
      const { g, t, audit } = setting(lang);
      // Without Embed Links in #audit, `set` names exactly what is missing and changes nothing.
      s.emulator.setPermissionOverwrite(audit, g.id, { type: 0, deny: Permission.EmbedLinks });
      const refused = await s.command(g, 'admin', 'feedbot', 'audit-channel set', { canal: audit });
      expect(text(refused)).toContain(t('audit.set.missing', { channel: audit, missing: `**${t('audit.perm.EmbedLinks')}**` }));
      s.emulator.deletePermissionOverwrite(audit, g.id);
      const set = await s.command(g, 'admin', 'feedbot', 'audit-channel set', { canal: audit });
      expect(set.flags).toBe(64);
      expect(set.embeds[0]!.description).toBe(t('audit.set.done', { channel: audit }));

      const first = await s.newKey(g);
      expect((await s.setKey(g, first)).embeds[0]!.title).toBe(t('apikey.set.title'));
      const created = await s.command(g, 'admin', 'feed', 'create', { cuenta: '@nasa', canal: g.channels.media, tipos: 'post' });
      const id = StoryStack.createdId(created);
      const asked = await s.command(g, 'admin', 'feed', 'delete', { id });
      expect((await s.pressFor(g, 'admin', asked, t('delete.button.confirm'), titled(t('delete.done.title')))).embeds[0]!.title).toBe(t('delete.done.title'));
      const second = await s.newKey(g);
      expect((await s.setKey(g, second)).embeds[0]!.title).toBe(t('apikey.set.title'));
      // Regenerated in the dashboard: the next command meets a 401, the channel hears it once.
      keys.set(lang, await s.newKey(g));
      for (let i = 0; i < 2; i++) expect(text(await s.command(g, 'member', 'stats', ''))).toContain(t('error.unauthorized').slice(0, 30));
      const removed = await s.command(g, 'admin', 'apikey', 'remove');
      expect(removed.embeds[0]!.description).toBe(t('apikey.removed'));

      const posts = await s.expectEmbeds(audit, 6);
      expect(titles(posts)).toEqual([
        t('audit.keySet.title'),
        t('audit.feedCreated.title', { id }),
        t('audit.feedDeleted.title', { id }),
        t('audit.keyReplaced.title'),
        t('audit.keyStopped.title'),
        t('audit.keyRemoved.title'),
      ]);
      if (lang === 'es') expect(posts[1]!.title).toBe(`Feed #${id} creado`);
      const [keySet, feedCreated, feedDeleted, replaced, stopped, keyRemoved] = posts.map(show) as [string, string, string, string, string, string];
      // Who, which feed, where it forwards; keys masked.
      expect(feedCreated).toContain(`<@${ADMIN_USER_ID}>`);
      expect(feedCreated).toContain(t('audit.feed.label', { id, cuenta: 'nasa' }));
      expect(feedCreated).toContain(`<#${g.channels.media}>`);
      expect(feedDeleted).toContain(t('audit.field.forwardedTo'));
      expect(keySet).toContain(`••••${first.slice(-4)}`);
      expect(replaced).toContain(`••••${second.slice(-4)}`);
      expect(stopped).toContain(`••••${second.slice(-4)}`);
      expect(keyRemoved).toContain(`••••${second.slice(-4)}`);
      // Posted without pings.
      const bodies = s.emulator.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${audit}/messages`).map((c) => c.body as { allowed_mentions?: unknown });
      expect(bodies.length).toBeGreaterThanOrEqual(1);
      for (const body of bodies) expect(body.allowed_mentions).toEqual({ parse: [] });

      const status = await s.command(g, 'admin', 'feedbot', 'audit-channel status');
      expect(status.embeds[0]!.description).toBe(t('audit.status.channel', { channel: audit }));
      // No failure to report; the health checks' field is the only one.
      expect((status.embeds[0]!.fields ?? []).map((f) => f.name)).toEqual([t('sweep.status.field')]);
    }), 60_000);

  it('a channel deleted in Discord: the list marks its feeds, the audit channel gets one message listing them, problemas:True deletes them', () =>
    inEachLanguage(async (lang) => {
      const { t } = setting(lang);
      const d = fresh[lang];
      const audit = d.channels.audit;
      await s.command(d, 'admin', 'feedbot', 'audit-channel set', { canal: audit });
      await s.setKey(d, await s.newKey(d));
      const into = (cuenta: string, canal: string) => s.command(d, 'admin', 'feed', 'create', { cuenta, canal, tipos: 'post' }).then(StoryStack.createdId);
      const gone = [await into('doomed.one', d.channels.doomed), await into('doomed.two', d.channels.doomed)];
      const healthy = await into('healthy', d.channels.news);
      const before = (await s.expectEmbeds(audit, 4)).length; // keySet, 3 × feedCreated

      s.emulator.deleteChannel(d.channels.doomed);
      // Over the gateway CHANNEL_DELETE tells the bot at once; over HTTP the list notices it.
      if (transport === 'gateway') await s.expectEmbeds(audit, before + 1);

      const list = await s.command(d, 'member', 'feed', 'list');
      const field = (id: number) => list.embeds[0]!.fields!.find((f) => f.name.startsWith(`#${id} `))!.value;
      const mark = `⚠️ ${t('health.warning.channelMissing')}`;
      for (const id of gone) expect(field(id)).toContain(mark);
      expect(field(healthy)).not.toContain('⚠️');
      const problems = await s.command(d, 'member', 'feed', 'list', { problemas: true });
      expect(problems.embeds[0]!.fields!.map((f) => f.name)).toEqual(gone.map((id) => t('list.field.name', { id, cuenta: id === gone[0] ? 'doomed.one' : 'doomed.two' })));
      // Listed again: still one message for that channel.
      await s.command(d, 'member', 'feed', 'list');
      const warning = (await s.expectEmbeds(audit, before + 1, { quietMs: 400 })).at(-1)!;
      // The post speaks the language of the admin who chose the audit channel (src/audit/trail.ts),
      // though nobody's locale comes with CHANNEL_DELETE. Over the gateway the deleted channel's
      // name is known; over HTTP the list that noticed it knows only its id.
      const [channel, w] = [transport === 'gateway' ? '#doomed' : d.channels.doomed, t];
      expect(warning.title).toBe(w('audit.channelDeleted.title', { channel }));
      for (const id of gone) expect(warning.description).toContain(`\`/feed ${w('cmd.feed.delete.name')} ${w('opt.id.name')}:${id}\``);
      // As the reader's client shows the boolean: problemas:True, problemas:Verdadero.
      expect(warning.description).toContain(`\`/feed ${w('cmd.feed.delete.name')} ${w('opt.problemas.name')}:${w('audit.option.true')}\``);
      expect(warning.description).not.toContain(`:${healthy}\``);

      const asked = await s.command(d, 'admin', 'feed', 'delete', { problemas: true });
      expect(asked.embeds[0]!.title).toBe(t('bulkDelete.confirm.title', { count: 2 }));
      // The press settles at the progress edit; the report comes when the deletes are done.
      const done = await s.pressFor(d, 'admin', asked, t('bulkDelete.button.confirm', { count: 2 }), titled(t('bulkDelete.report.title'), t('bulkDelete.report.title.incomplete')));
      expect(done.embeds[0]!.title).toBe(t('bulkDelete.report.title'));
      expect(done.embeds[0]!.description).toContain(t('bulkDelete.report.summary', { deleted: 2, gone: 0, failed: 0, notAttempted: 0 }));
      expect((await s.sandbox.admin.listFeeds(d.id)).map((f) => f.id)).toEqual([healthy]);
      const after = await s.expectEmbeds(audit, before + 3);
      expect(titles(after.slice(-2)).sort()).toEqual(gone.map((id) => t('audit.feedDeleted.title', { id })).sort());
    }), 60_000);

  it('feed health: paused and quiet feeds are marked, the threshold is per server, and estado, cuenta and problemas filter the list', () =>
    inEachLanguage(async (lang) => {
      const { t } = setting(lang);
      const d = fresh[lang];
      // Made and changed in the dashboard: a feed whose last post is 3 days old, and a paused one.
      const quiet = await s.sandbox.admin.createFeed(d.id, { cuenta: 'quiet.one', canalId: d.channels.news, tipos: ['post'] });
      await s.sandbox.admin.addPost(d.id, quiet.id, { publicadoDiscord: new Date(Date.now() - 3 * 86_400_000).toISOString() });
      const paused = await s.sandbox.admin.createFeed(d.id, { cuenta: 'paused.one', canalId: d.channels.media, tipos: ['post'] });
      await s.sandbox.admin.pauseFeed(d.id, paused.id);
      const names = (m: APIMessage) => (m.embeds[0]!.fields ?? []).map((f) => f.name.replace(/^#\d+ · @/, ''));
      const inactive = `⏸️ ${t('health.warning.inactive')}`;

      const list = await s.command(d, 'member', 'feed', 'list');
      const value = (cuenta: string) => list.embeds[0]!.fields!.find((f) => f.name.endsWith(`@${cuenta}`))!.value;
      expect(value('paused.one')).toContain(inactive);
      // 3 days is within the default 7.
      expect(value('quiet.one')).not.toContain('⏳');
      expect(names(await s.command(d, 'member', 'feed', 'list', { problemas: true }))).toEqual(['paused.one']);

      const threshold = await s.command(d, 'admin', 'feedbot', 'health threshold', { dias: 2 });
      expect(threshold.embeds[0]!.description).toBe(t('health.threshold.set', { days: 2 }));
      const problems = await s.command(d, 'member', 'feed', 'list', { problemas: true });
      expect(names(problems)).toEqual(['quiet.one', 'paused.one']);
      expect(problems.embeds[0]!.description).toBe(t('health.list.filtered', { count: 2, filters: t('health.list.filter.problemas') }));
      expect(problems.embeds[0]!.fields![0]!.value).toContain(`⏳ ${t('health.warning.stale', { days: 2 })}`);
      // The state as the user's Discord shows it, and part of an account name.
      expect(names(await s.command(d, 'member', 'feed', 'list', { estado: t('state.pausado') }))).toEqual(['paused.one']);
      expect(names(await s.command(d, 'member', 'feed', 'list', { cuenta: 'QUIET' }))).toEqual(['quiet.one']);
      const none = await s.command(d, 'member', 'feed', 'list', { cuenta: 'nobody' });
      expect(none.embeds[0]!.description).toContain(t('health.list.empty.cuenta', { cuenta: 'nobody' }));
    }), 30_000);

  it('a member with a feed-manager role creates and deletes a feed; the audit posts name the role', () =>
    inEachLanguage(async (lang) => {
      const { g, t, audit } = setting(lang);
      const role = `<@&${g.crewRoleId}>`;
      await s.setKey(g, keys.get(lang)!);
      const added = await s.command(g, 'admin', 'feedbot', 'managers add', { rol: g.crewRoleId });
      expect(added.embeds[0]!.description).toBe(t('managers.added', { role }));
      const before = (await s.expectEmbeds(audit, 7)).length; // the first story's 6, keySet

      const id = StoryStack.createdId(await s.command(g, 'crew', 'feed', 'create', { cuenta: 'crew.pick', canal: g.channels.news, tipos: 'post' }));
      const asked = await s.command(g, 'crew', 'feed', 'delete', { id });
      expect(text(asked)).toContain(t('delete.allowedBy', { role }));
      expect((await s.pressFor(g, 'crew', asked, t('delete.button.confirm'), titled(t('delete.done.title')))).embeds[0]!.title).toBe(t('delete.done.title'));
      const posts = await s.expectEmbeds(audit, before + 2);
      const byRole = t('audit.field.byRole', { user: CREW_USER_ID, role: g.crewRoleId });
      expect(titles(posts.slice(-2))).toEqual([t('audit.feedCreated.title', { id }), t('audit.feedDeleted.title', { id })]);
      for (const post of posts.slice(-2)) expect(post.fields!.find((f) => f.name === t('audit.field.by'))!.value).toBe(byRole);

      // The role allows feeds, not the settings; a member without it is told about the roles.
      const settings = await s.command(g, 'crew', 'feedbot', 'audit-channel status', {}, { ignoreDefaultMemberPermissions: true });
      expect(text(settings)).toContain(t('action.manageSettings'));
      const refused = await s.command(g, 'member', 'feed', 'create', { cuenta: 'nope', canal: g.channels.news, tipos: 'post' });
      expect(text(refused)).toContain(t('error.missingPermission.orManager', { action: t('action.createFeed') }));
      expect((await s.sandbox.admin.listFeeds(g.id)).map((f) => f.cuenta)).not.toContain('nope');
    }), 60_000);

  it('an audit post that fails later (channel deleted) never fails the command, is logged once and reported once by status', () =>
    inEachLanguage(async (lang) => {
      const { g, t, audit } = setting(lang);
      s.emulator.deleteChannel(audit);
      const created = await s.command(g, 'admin', 'feed', 'create', { cuenta: 'after.audit', canal: g.channels.news, tipos: 'post' });
      expect(created.embeds[0]!.title).toBe(t('create.title'));
      const failed = await s.stack.bot!.waitForLog((l) => l.msg === 'audit post failed' && l.guildId === g.id, 10_000);
      expect(failed).toMatchObject({ channelId: audit, reason: 'unknown_channel' });
      expect(JSON.stringify(failed)).toContain('feedCreated');

      const status = await s.command(g, 'admin', 'feedbot', 'audit-channel status');
      const failure = status.embeds[0]!.fields!.find((f) => f.name === t('audit.status.failure'))!;
      expect(failure.value).toContain(t('audit.failure.unknown_channel'));
      expect(failure.value).toContain(String(failed.ref));
      const again = await s.command(g, 'admin', 'feedbot', 'audit-channel status');
      // Reported once: the second status has only the health checks' field.
      expect((again.embeds[0]!.fields ?? []).map((f) => f.name)).toEqual([t('sweep.status.field')]);
      expect(s.stack.bot!.lines.filter((l) => l.msg === 'audit post failed' && l.guildId === g.id)).toHaveLength(1);
    }), 30_000);

  it('no key reached Discord or a log line, and Discord refused nothing the bot sent', () => {
    s.expectNoSecretLeaked();
    // The audit posts into the deleted #audit (one per language) are refused with 10003 Unknown Channel, as Discord would: that is the story.
    s.expectNoViolations((v) => v.code === 10003 && v.route === '/channels/:channel/messages');
    expect(s.emulator.violations.filter((v) => v.code === 10003)).toHaveLength(LANGS.length);
  });
});
