/**
 * Confirmations behind stateless replicas (a story of replicas.test.ts): the question
 * is answered by one replica and its button pressed on another (nginx's round-robin hands each
 * interaction to the next replica), so what the question remembered must be found there, once.
 * /feed import, a bulk /feed delete, and a single /feed delete whose audit post names the account
 * and the channel from what its question remembered.
 */
import { expect } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import type { BotGroup } from '@feedbot/playground';
import type { InteractionInput, InteractionSnapshot } from '@feedbot/discord-emulator';
import { actor, answered, messageWhen, storyGuild, text, titled, type Expected, type StoryStack } from './story-kit.js';
import { exportFile } from './transfer-kit.js';

/** The story's own guild and key: the other stories of the file spend the demo guild's budget. */
export const CONFIRM_GUILD = storyGuild(40, 'en', 'Confirmations across replicas');

/** The index (in the group) of the replica that logged the interaction. */
async function replicaOf(group: BotGroup, interactionId: string): Promise<number> {
  const find = () => group.members.findIndex((m) => m.lines.some((l) => l.msg === 'interaction' && l.interactionId === interactionId));
  await expect.poll(find, { timeout: 10_000, interval: 25 }).toBeGreaterThanOrEqual(0);
  return find();
}

export async function confirmationsAcrossReplicas(s: StoryStack, group: () => BotGroup): Promise<void> {
  const g = CONFIRM_GUILD;
  const t = g.t;
  await s.setKey(g, await s.newKey(g));
  await s.command(g, 'admin', 'feedbot', 'audit-channel set', { canal: g.channels.audit });
  // Made in the dashboard: no replica has listed them yet.
  const made = (cuenta: string, canalId: string) => s.sandbox.admin.createFeed(g.id, { cuenta, canalId, tipos: ['post'] });
  const lone = await made('nasa', g.channels.media);
  await made('esa.space', g.channels.news);
  await made('jaxa', g.channels.news);
  const cuentas = async () => (await s.sandbox.admin.listFeeds(g.id)).map((f) => f.cuenta).sort();

  const ask = (subcommand: string, options: Record<string, string | number>) =>
    s.send({ type: 'command', commandName: 'feed', subcommand, options, ...actor(g, 'admin') } as InteractionInput);
  /**
   * Presses `label` on the question's answer and waits, bounded, for the `expected` edit (a batch
   * settles at its progress; its report comes later); the press must land on another replica.
   */
  async function pressElsewhere(question: InteractionSnapshot, label: string, expected: Expected): Promise<APIMessage> {
    const asking = await messageWhen(s.emulator, question.id, answered, { what: 'the question' });
    const pressed = await s.press(g, 'admin', asking, label);
    const [asked, answeredBy] = [await replicaOf(group(), question.id), await replicaOf(group(), pressed.id)];
    expect(answeredBy, 'round-robin sent the press to the replica that asked').not.toBe(asked);
    return messageWhen(s.emulator, pressed.id, expected, { what: `after "${label}", the expected message` });
  }

  const one = await pressElsewhere(await ask('delete', { id: lone.id }), t('delete.button.confirm'), titled(t('delete.done.title')));
  expect(one.embeds[0]!.description).toBe(t('delete.done', { id: lone.id }));
  const bulkReport = titled(t('bulkDelete.report.title'), t('bulkDelete.report.title.incomplete'));
  const bulk = await pressElsewhere(await ask('delete', { canal: g.channels.news }), t('bulkDelete.button.confirm', { count: 2 }), bulkReport);
  expect(bulk.embeds[0]!.title).toBe(t('bulkDelete.report.title'));
  expect(text(bulk)).not.toContain(t('delete.expired'));
  await expect.poll(cuentas, { timeout: 10_000 }).toEqual([]);

  const rows = ['one', 'two', 'three'].map((c) => ({ cuenta: `moved.${c}`, canal: g.channels.news }));
  const file = s.emulator.uploadAttachment({ filename: 'feeds.json', data: exportFile(g, rows), contentType: 'application/json' });
  const importReport = titled(t('import.report.title'), t('import.report.title.incomplete'));
  const report = await pressElsewhere(await ask('import', { archivo: file.id }), t('import.button.confirm', { count: 3 }), importReport);
  expect(report.embeds[0]!.title).toBe(t('import.report.title'));
  expect(text(report)).not.toContain(t('import.expired'));
  await expect.poll(cuentas, { timeout: 10_000 }).toEqual(rows.map((r) => r.cuenta).sort());

  // One audit post per feed deleted and created, each with what its question remembered.
  const posts = await s.expectEmbeds(g.channels.audit, 6);
  const shown = posts.map((e) => JSON.stringify(e));
  expect(posts[0]!.title).toBe(t('audit.feedDeleted.title', { id: lone.id }));
  expect(shown[0]).toContain(t('audit.feed.label', { id: lone.id, cuenta: 'nasa' }));
  expect(shown[0]).toContain(`<#${g.channels.media}>`);
  for (const post of shown.slice(1, 3)) expect(post).toMatch(/@(esa\.space|jaxa)/);
  for (const post of shown.slice(1, 3)) expect(post).toContain(`<#${g.channels.news}>`);
  expect(posts.slice(3).map((e) => e.title)).toEqual(posts.slice(3).map(() => expect.stringMatching(/^Feed #\d+ created$/)));
}
