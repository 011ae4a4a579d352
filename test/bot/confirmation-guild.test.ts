/**
 * A confirmation press is matched to its question by the guild as well as by the asking
 * interaction: a press carrying another guild's custom_id (Discord only sends the ids of the
 * message clicked, so this is defence in depth) finds no question, changes nothing with this
 * guild's key, and leaves the question usable where it was asked. And a delete button whose
 * `asked` names no open question is an expired question, never a button of the former format.
 */
import { describe, expect, vi } from 'vitest';
import { MessageFlags } from 'discord.js';
import { ADMIN_ID, GUILD_ID, OTHER_GUILD_ID, buttonPress, chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from './known-guilds.js';
import { C1, exportFile, guildChannels, importPayload, lastShown, previewButtons } from './transfer-fixtures.js';

type Body = { type: number; data: { flags?: number; embeds: { title?: string; description?: string }[]; components?: { components: { custom_id: string }[] }[] } };
const lastCallback = (h: BotHarness) => h.discord.callbacks().at(-1)!.body as Body;
const buttonsOf = (b: Body) => b.data.components![0]!.components.map((c) => c.custom_id);
const fromOtherGuild = { guildId: OTHER_GUILD_ID };
const DELETE_EXPIRED = 'This confirmation has expired. Run `/feed delete` again.';
const IMPORT_EXPIRED = 'This import preview has expired. Run `/feed import` again.';

describe('a press in another guild than its question', () => {
  botTest('/feed import: the other guild runs nothing with its key; the preview still answers here', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    await h.setKey(OTHER_GUILD_ID, 'other-guild-key');
    guildChannels(h, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: rl() });
    await h.run(importPayload(h, exportFile([{ cuenta: 'nasa', canal: C1, tipos: ['post'] }])));
    const { confirm, cancel } = previewButtons(h);

    // No interceptor for POST /v1/feeds: a create would fail loudly; none is attempted.
    await h.run(buttonPress(confirm, fromOtherGuild, MessageFlags.Ephemeral));
    expect(lastShown(h)).toMatchObject({ embeds: [{ description: IMPORT_EXPIRED }], components: [] });
    expect(audit).not.toHaveBeenCalled();

    await h.run(buttonPress(cancel, {}, MessageFlags.Ephemeral));
    expect(lastShown(h)).toMatchObject({ embeds: [{ description: 'Cancelled: no feed was created.' }] });
  });

  botTest('/feed delete <id>: the other guild deletes nothing; the question still answers here', async ({ bot: h }) => {
    await h.setKey(OTHER_GUILD_ID, 'other-guild-key');
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { id: 1 }));
    const [confirm] = buttonsOf(lastCallback(h));

    await h.run(buttonPress(confirm!, fromOtherGuild, MessageFlags.Ephemeral));
    expect(lastCallback(h).data.embeds[0]!.description).toBe(DELETE_EXPIRED);

    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    await h.run(buttonPress(confirm!, {}, MessageFlags.Ephemeral));
    expect(lastCallback(h).data.embeds[0]!.description).toBe('Feed #1 was deleted.');
  });

  botTest('/feed delete canal: the other guild deletes nothing; the question still answers here', async ({ bot: h }) => {
    await h.setKey(OTHER_GUILD_ID, 'other-guild-key');
    knowGuild(h.discord.client, GUILD_ID, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'delete', { canal: { channel: { id: C1, name: 'space' } } }));
    const [confirm, cancel] = buttonsOf(lastCallback(h));

    await h.run(buttonPress(confirm!, fromOtherGuild, MessageFlags.Ephemeral));
    expect(lastCallback(h).data.embeds[0]!.description).toBe(DELETE_EXPIRED);

    await h.run(buttonPress(cancel!, {}, MessageFlags.Ephemeral));
    expect(lastCallback(h).data.embeds[0]!.description).not.toBe(DELETE_EXPIRED);
  });
});

describe('a delete button whose asked id matches no open question', () => {
  botTest('is an expired question (the id dropped a digit), not a button of the former format', async ({ bot: h }) => {
    const audit = vi.spyOn(h.audit, 'record');
    const expires = Math.ceil(Date.now() / 1000) + 60;
    // No DELETE interceptor: the press must not reach the API.
    await h.run(buttonPress(`feed:delete:yes:11:${ADMIN_ID}:${expires}:157610435715635621`, {}, MessageFlags.Ephemeral));
    expect(lastCallback(h).data.embeds[0]!.description).toBe(DELETE_EXPIRED);
    expect(audit).not.toHaveBeenCalled();
  });

  botTest('an asked part written "-" is no button of ours', async ({ bot: h }) => {
    const expires = Math.ceil(Date.now() / 1000) + 60;
    await h.run(buttonPress(`feed:delete:yes:11:${ADMIN_ID}:${expires}:-`, {}, MessageFlags.Ephemeral));
    expect(lastCallback(h).data.embeds[0]!.description).toBe('These buttons have expired. Run the command again.');
  });
});
