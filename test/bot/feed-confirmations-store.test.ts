/**
 * Open confirmations when the store that keeps them does not answer (Redis down behind replicas):
 * asking or pressing is answered privately with "try again", nothing is changed and the question
 * stays usable; once the store answers, the same buttons work, with what the question remembered.
 */
import { beforeEach, describe, expect, vi } from 'vitest';
import { MessageFlags } from 'discord.js';
import { ConfirmationsUnavailableError, type PendingStore } from '../../src/interactions/pending.js';
import { MemoryPendingStore } from '../../src/interactions/pending-memory.js';
import { GUILD_ID, buttonPress, chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';
import { C1, exportFile, guildChannels, importPayload, lastShown, previewButtons, shown } from './transfer-fixtures.js';

const TRY_AGAIN = "The bot's shared storage did not answer, so this confirmation could not be handled. Nothing was changed: try again in a moment.";

/** The memory store, with a switch that makes every operation fail as RedisPendingStore does while Redis is down. */
class SwitchableStore implements PendingStore {
  down = false;
  private readonly memory = new MemoryPendingStore();
  put(key: string, json: string, ttlMs: number) {
    return this.unlessDown(() => this.memory.put(key, json, ttlMs));
  }
  take(key: string) {
    return this.unlessDown(() => this.memory.take(key));
  }
  claim(key: string, owner: string, ttlMs: number) {
    return this.unlessDown(() => this.memory.claim(key, owner, ttlMs));
  }
  release(key: string, owner: string) {
    return this.unlessDown(() => this.memory.release(key, owner));
  }
  private async unlessDown<T>(work: () => Promise<T>): Promise<T> {
    if (this.down) throw new ConfirmationsUnavailableError();
    return work();
  }
}

const store = new SwitchableStore();
type Body = { type: number; data: { flags?: number; embeds: { title?: string; description?: string }[]; components?: { components: { custom_id: string }[] }[] } };
const callback = (h: BotHarness, i: number) => h.discord.callbacks()[i]!.body as Body;
const refusals = (h: BotHarness) => h.logs.filter((l) => l.msg === 'the confirmation store did not answer; the user is asked to try again');

describe('open confirmations while their store does not answer', () => {
  botTest.override({ harness: { pending: store } });
  beforeEach(() => {
    store.down = false;
  });

  botTest('/feed delete asks nothing: a private "try again", without buttons', async ({ bot: h }) => {
    store.down = true;
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    const answer = callback(h, 0);
    expect(answer.data).toMatchObject({ flags: MessageFlags.Ephemeral, embeds: [{ description: TRY_AGAIN }] });
    expect(answer.data.components ?? []).toEqual([]);
    expect(refusals(h)).toMatchObject([{ confirmation: 'delete', op: 'put', level: 40 }]);
  });

  botTest('a press is told to try again privately and deletes nothing; pressed again later, it deletes and audits the account', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    const yes = callback(h, 0).data.components![0]!.components[0]!.custom_id;
    store.down = true;
    await h.run(buttonPress(yes, {}, MessageFlags.Ephemeral));
    // A reply of its own (4), not an update (7): the confirmation and its buttons stay.
    expect(callback(h, 1)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, embeds: [{ description: TRY_AGAIN }] } });
    store.down = false;
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(yes, {}, MessageFlags.Ephemeral));
    expect(callback(h, 2)).toMatchObject({ type: 7, data: { embeds: [{ description: 'Feed #1 was deleted.' }] } });
    expect(audit.mock.calls.map((call) => call[1])).toEqual([
      { kind: 'feedDeleted', actor: expect.any(Object), feed: { id: 1, cuenta: 'nasa', canalId: '1300000000000000001', tipos: ['post', 'reel'] } },
    ]);
  });

  botTest('a bulk delete pressed meanwhile is not "already running": it says try again, and deletes once pressed again', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, ['1300000000000000001']);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { canal: { channel: { id: '1300000000000000001', name: 'space' } } }));
    const yes = callback(h, 0).data.components![0]!.components[0]!.custom_id;
    store.down = true;
    await h.run(buttonPress(yes));
    expect(callback(h, 1)).toMatchObject({ type: 4, data: { flags: MessageFlags.Ephemeral, embeds: [{ description: TRY_AGAIN }] } });
    store.down = false;
    // The list is the cached one of the question.
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(yes));
    expect((h.discord.edits().at(-1)!.body as Body['data']).embeds[0]!.title).toBe('Feeds deleted');
  });

  botTest('an import pressed meanwhile creates nothing and says try again; the preview then imports', async ({ bot: h }) => {
    guildChannels(h, [C1]);
    const none = { feeds: [], total: 0, plan: 'server' };
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, none, { headers: rl() });
    await h.run(importPayload(h, exportFile([{ cuenta: 'nasa', canal: C1, tipos: ['post'] }])));
    const { confirm } = previewButtons(h);
    store.down = true;
    await h.run(buttonPress(confirm, {}, MessageFlags.Ephemeral));
    expect(lastShown(h)).toMatchObject({ flags: MessageFlags.Ephemeral, embeds: [{ description: TRY_AGAIN }] });
    expect(refusals(h)).toMatchObject([{ confirmation: 'import', op: 'claim' }]);
    store.down = false;
    const created = { id: 21, cuenta: 'nasa', canalId: C1, estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, none, { headers: rl() });
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(201, created, { headers: rl() });
    await h.run(buttonPress(confirm, {}, MessageFlags.Ephemeral));
    expect(shown(h).at(-1)!.embeds[0]).toMatchObject({ title: 'Import finished', description: '1 created · 0 already present · 0 refused · 0 not attempted' });
  });
});
