/**
 * End to end, the forms that replace typed options: the real bot process against the Discord
 * emulator (which validates every message, callback and modal as Discord does) and the HTTPS
 * sandbox, over the gateway and over HTTP, in English and Spanish, each language in guilds of its
 * own:
 *  - /feed create without options opens its form; a bad account is refused; the form creates.
 *  - /feed delete without an option: 30 feeds → a picker of 2 pages; Next in place; 2 chosen →
 *    the confirmation → exactly those 2 deleted.
 *  - /feedbot settings: the panel; the threshold, the manager roles and the audit channel change
 *    on selection and the panel is redrawn in place; Remove key asks, Cancel keeps the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import { LANGS, StoryStack, TRANSPORTS, actor, answered, inEachLanguage, messageWhen, storyGuild, titled, type StoryGuild } from './story-kit.js';
import type { Lang } from '../../src/i18n/index.js';

type Component = { type: number; custom_id?: string; label?: string; options?: { value: string; default?: boolean }[] };
const components = (m: APIMessage): Component[] => (m.components ?? []).flatMap((row) => ('components' in row ? (row.components as Component[]) : []));
const selectOf = (m: APIMessage, type: number): Component => {
  const found = components(m).find((c) => c.type === type);
  if (!found?.custom_id) throw new Error(`no select of type ${type} on ${m.id}`);
  return found;
};

describe.each(TRANSPORTS)('forms instead of typed options [%s]', (transport) => {
  const guild = (n: number, lang: Lang, name: string) => storyGuild(60 + n * 2 + (lang === 'es' ? 1 : 0), lang, `${name} (${lang})`);
  const byStory = (lang: Lang) => ({ create: guild(0, lang, 'Create form'), pick: guild(1, lang, 'Delete picker'), settings: guild(2, lang, 'Settings panel') });
  const guilds = { en: byStory('en'), es: byStory('es') };
  let s: StoryStack;

  beforeAll(async () => {
    s = await StoryStack.start(transport, LANGS.flatMap((l) => Object.values(guilds[l])));
    for (const l of LANGS) for (const g of Object.values(guilds[l])) expect((await s.setKey(g, await s.newKey(g))).embeds[0]!.title).toBe(g.t('apikey.set.title'));
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  }, 30_000);

  /** Sends `input` and waits, bounded, for its answer as a message. */
  async function answerTo(handle: { id: string }, what: string): Promise<APIMessage> {
    return messageWhen(s.emulator, handle.id, answered, { what });
  }

  async function openForm(g: StoryGuild, options: Record<string, string> = {}) {
    const opened = await s.emulator.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'create', options, ...actor(g, 'admin') }).waitForAck();
    expect(opened.ack?.type).toBe(9);
    return opened;
  }

  it('/feed create without options: the form, a refusal, then the feed', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].create;
      const form = await openForm(g);
      const modal = form.modal as unknown as { title: string; components: { component: { type: number } }[] };
      expect(modal.title).toBe(g.t('forms.create.title'));
      expect(modal.components.map((c) => c.component.type)).toEqual([4, 8, 22]);

      const refused = s.emulator.submitModal({ interactionId: form.id, values: { cuenta: 'https://example.com/x', canal: [g.channels.news], tipos: ['post'] }, ...actor(g, 'admin') });
      expect((await answerTo(refused, 'the refusal')).flags).toBe(64);

      const again = await openForm(g, { cuenta: 'nasa' });
      const prefilled = (again.modal as unknown as { components: { component: { value?: string } }[] }).components[0]!.component.value;
      expect(prefilled).toBe('nasa');
      const created = await answerTo(s.emulator.submitModal({ interactionId: again.id, values: { canal: [g.channels.news], tipos: ['post', 'reel'] }, ...actor(g, 'admin') }), 'the created feed');
      expect(created.embeds[0]!.title).toBe(g.t('create.title'));
      expect(created.flags ?? 0).toBe(0);
      const feeds = await s.sandbox.admin.listFeeds(g.id);
      expect(feeds.map((f) => [f.cuenta, f.canalId, f.tipos])).toEqual([['nasa', g.channels.news, ['post', 'reel']]]);
    });
    s.expectNoViolations();
  }, 60_000);

  it('/feed delete without an option: 30 feeds in 2 pages, 2 chosen, exactly those deleted', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].pick;
      for (let i = 1; i <= 30; i++) await s.sandbox.admin.createFeed(g.id, { cuenta: `account${i}`, canalId: g.channels.media, tipos: ['post'], filtros: [] });
      const ids = (await s.sandbox.admin.listFeeds(g.id)).map((f) => f.id);
      const picker = await s.command(g, 'admin', 'feed', 'delete');
      expect(picker.flags).toBe(64);
      expect(picker.embeds[0]!.footer?.text).toBe(g.t('forms.delete.page', { page: 1, pages: 2 }));
      expect(selectOf(picker, 3).options).toHaveLength(25);

      const next = await s.pressFor(g, 'admin', picker, g.t('button.next'), (m) => m.embeds[0]?.footer?.text === g.t('forms.delete.page', { page: 2, pages: 2 }));
      expect(next.id).toBe(picker.id);
      expect(selectOf(next, 3).options).toHaveLength(5);

      const chosen = [ids[26]!, ids[28]!].map(String);
      const select = s.emulator.selectMenu({ messageId: next.id, customId: selectOf(next, 3).custom_id!, values: chosen, ...actor(g, 'admin') });
      const confirmation = await messageWhen(s.emulator, select.id, titled(g.t('bulkDelete.confirm.title', { count: 2 })), { what: 'the confirmation' });
      expect(confirmation.id).toBe(picker.id);
      const report = await s.pressFor(g, 'admin', confirmation, g.t('bulkDelete.button.confirm', { count: 2 }), titled(g.t('bulkDelete.report.title'), g.t('bulkDelete.report.title.incomplete')), 30_000);
      expect(report.embeds[0]!.title).toBe(g.t('bulkDelete.report.title'));
      const left = (await s.sandbox.admin.listFeeds(g.id)).map((f) => f.id);
      expect(left).toHaveLength(28);
      expect(left).not.toContain(ids[26]);
      expect(left).not.toContain(ids[28]);
    });
    s.expectNoViolations();
  }, 120_000);

  it('/feedbot settings: each change applies on selection and redraws the panel in place', async () => {
    await inEachLanguage(async (lang) => {
      const g = guilds[lang].settings;
      const panel = await s.command(g, 'admin', 'feedbot', 'settings');
      expect(panel.flags).toBe(64);
      expect(panel.embeds[0]!.title).toBe(g.t('forms.settings.title'));
      expect(components(panel).map((c) => c.type)).toEqual([8, 6, 3, 2, 2, 2]);

      const changed = async (type: number, values: string[], notice: string) => {
        const current = s.emulator.messages({ channelId: g.channels.news }).find((m) => m.id === panel.id) ?? panel;
        const handle = s.emulator.selectMenu({ messageId: panel.id, customId: selectOf(current, type).custom_id!, values, ...actor(g, 'admin') });
        const redrawn = await messageWhen(s.emulator, handle.id, (m) => (m.embeds[0]?.description ?? '').startsWith(notice), { what: notice });
        expect(redrawn.id).toBe(panel.id);
        return redrawn;
      };
      await changed(3, ['30'], g.t('forms.settings.done.threshold', { days: 30 }));
      await changed(6, [g.crewRoleId], g.t('forms.settings.done.managers', { count: 1 }));
      const withAudit = await changed(8, [g.channels.audit], g.t('forms.settings.done.audit', { channel: g.channels.audit }));
      expect(JSON.stringify(withAudit.embeds[0]!.fields)).toContain(`<#${g.channels.audit}>`);

      const question = await s.pressFor(g, 'admin', withAudit, g.t('forms.settings.button.removeKey'), (m) => m.embeds[0]?.title === g.t('forms.settings.button.removeKey'));
      const kept = await s.pressFor(g, 'admin', question, g.t('delete.button.cancel'), (m) => (m.embeds[0]?.description ?? '').startsWith(g.t('forms.settings.done.keyKept')));
      expect(kept.id).toBe(panel.id);
    });
    s.expectNoViolations();
    s.expectNoSecretLeaked();
  }, 60_000);
});
