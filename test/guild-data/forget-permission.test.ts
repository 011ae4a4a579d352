/**
 * /feedbot forget's Delete pressed by someone who no longer has Manage Server: refused, and the
 * question stays open (as bulk delete's does), so a press once the permission is back still works
 * instead of finding the confirmation "expired". Over both transports (this folder is not in
 * vitest's "commands over http" project, so each is named here).
 */
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { GUILD_ID, MEMBER_PERMS, buttonPress, chatInput } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import { AUDIT_CHANNEL_ID, answerRest, auditPosts, type World } from '../audit/discord-world.js';

type Button = { custom_id: string; label: string };
type Body = { type: number; data: { embeds: Array<{ title?: string; description?: string }>; components?: Array<{ components: Button[] }> } };

const world: World = { guildId: GUILD_ID, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit', overwrites: [] }] };
const answer = (h: BotHarness, i: number) => h.discord.callbacks()[i]!.body as Body;
const text = (h: BotHarness, i: number) => answer(h, i).data.embeds.map((e) => `${e.title ?? ''} ${e.description ?? ''}`).join('\n');

describe.each(['gateway', 'http'] as const)('/feedbot forget over %s, Delete without Manage Server', (transport) => {
  botTest.override({ harness: { transport } });

  botTest('is refused and keeps the question: the next press, with the permission back, deletes', async ({ bot: h }) => {
    expect(h.transport).toBe(transport);
    answerRest(h.discord.recorder, world);
    await h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID }));
    await h.run(chatInput('feedbot', 'forget', {}));
    const yes = answer(h, 0).data.components![0]!.components[0]!;
    expect(yes.label).toBe('Delete everything');

    // The same admin, whose Manage Server was taken away meanwhile.
    await h.run(buttonPress(yes.custom_id, { permissions: MEMBER_PERMS }, MessageFlags.Ephemeral));
    expect(text(h, 1)).toMatch(/Manage Server/);
    expect(await h.keys.has(GUILD_ID)).toBe(true);
    expect(auditPosts(h.discord.recorder)).toEqual([]);

    await h.run(buttonPress(yes.custom_id, {}, MessageFlags.Ephemeral));
    expect(text(h, 2)).not.toMatch(/expired/);
    expect(answer(h, 2).data.embeds[0]!.title).toBe('Server data deleted');
    expect(await h.keys.has(GUILD_ID)).toBe(false);
  });
});
