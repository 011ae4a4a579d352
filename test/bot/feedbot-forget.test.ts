/**
 * /feedbot forget: a private Delete/Cancel confirmation, then this server's key, settings and open
 * confirmations are deleted, the audit channel getting its last post before anything is deleted.
 * Both transports (this file runs in both projects).
 */
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { GUILD_ID, MEMBER_ID, MEMBER_PERMS, OTHER_GUILD_ID, buttonPress, chatInput, type Invoker } from '../helpers/discord.js';
import { botTest, type BotHarness } from '../helpers/bot.js';
import { AUDIT_CHANNEL_ID, answerRest, auditPosts, type AuditPostBody, type World } from '../audit/discord-world.js';

type Button = { custom_id: string; label: string; style: number };
type Embed = { title?: string; description?: string; fields?: { name: string; value: string }[] };
type Body = { type: number; data: { flags?: number; embeds: Embed[]; components?: { components: Button[] }[] } };

const world: World = { guildId: GUILD_ID, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit', overwrites: [] }] };

const forget = (invoker: Invoker = {}) => chatInput('feedbot', 'forget', {}, invoker);
const answer = (h: BotHarness, i: number) => h.discord.callbacks()[i]!.body as Body;
const buttons = (h: BotHarness) => answer(h, 0).data.components![0]!.components;
/** Keeps a key, settings with an audit channel, and an open confirmation of another command. */
async function storeEverything(h: BotHarness): Promise<void> {
  await h.setKey();
  await h.setKey(OTHER_GUILD_ID);
  await h.settings.update(GUILD_ID, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, staleAfterDays: 3 }));
  await h.settings.update(OTHER_GUILD_ID, (s) => ({ ...s, staleAfterDays: 9 }));
}

describe('/feedbot forget', () => {
  botTest.override({ withKey: false });

  botTest('Delete posts the last audit line first, then deletes this server and only this one', async ({ bot: h }) => {
    const order: string[] = [];
    answerRest(h.discord.recorder, world, {
      post: () => {
        order.push('audit post');
        return undefined;
      },
    });
    await storeEverything(h);
    const keysDelete = h.keys.delete.bind(h.keys);
    h.keys.delete = async (id) => {
      order.push(`delete key ${id}`);
      return keysDelete(id);
    };

    await h.run(forget());
    expect(answer(h, 0).data.flags).toBe(MessageFlags.Ephemeral);
    expect(answer(h, 0).data.embeds[0]!.title).toBe("Delete this server's feedbot data?");
    expect(buttons(h).map((b) => b.label)).toEqual(['Delete everything', 'Cancel']);
    // Nothing deleted by asking.
    expect(await h.keys.has(GUILD_ID)).toBe(true);

    await h.run(buttonPress(buttons(h)[0]!.custom_id, {}, MessageFlags.Ephemeral));
    expect(answer(h, 1).data.embeds[0]!.title).toBe('Server data deleted');
    expect(order).toEqual(['audit post', `delete key ${GUILD_ID}`]);
    const post = auditPosts(h.discord.recorder)[0]!.body as AuditPostBody;
    expect(post.embeds[0]!.title).toBe("feedbot's data for this server was deleted");

    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
    expect(await h.settings.get(GUILD_ID)).toEqual({ v: 1, managerRoleIds: [], reportedDeletedChannels: [] });
    // The other server keeps everything.
    expect(await h.keys.has(OTHER_GUILD_ID)).toBe(true);
    expect((await h.settings.get(OTHER_GUILD_ID)).staleAfterDays).toBe(9);
    expect(h.logs.find((l) => l.msg === 'guild data deleted')).toMatchObject({ guildId: GUILD_ID, reason: 'command', stores: ['key', 'settings', 'confirmations', 'sweeps'] });
  });

  botTest('Cancel deletes nothing; a second press of Delete finds the question answered', async ({ bot: h }) => {
    answerRest(h.discord.recorder, world);
    await storeEverything(h);
    await h.run(forget());
    const [yes, no] = buttons(h);
    await h.run(buttonPress(no!.custom_id, {}, MessageFlags.Ephemeral));
    expect(answer(h, 1).data.embeds[0]!.description).toBe('Nothing was deleted.');
    await h.run(buttonPress(yes!.custom_id, {}, MessageFlags.Ephemeral));
    expect(answer(h, 2).data.embeds[0]!.description).toBe('This confirmation has expired and nothing was deleted. Run `/feedbot forget` again.');
    expect(await h.keys.has(GUILD_ID)).toBe(true);
    expect(auditPosts(h.discord.recorder)).toEqual([]);
  });

  botTest('in Spanish, the question, the answer and the audit post', async ({ bot: h }) => {
    answerRest(h.discord.recorder, world);
    await storeEverything(h);
    await h.settings.update(GUILD_ID, (s) => ({ ...s, auditLocale: 'es-ES' }));
    await h.run(forget({ locale: 'es-ES' }));
    expect(answer(h, 0).data.embeds[0]!.title).toBe('¿Borrar los datos de feedbot de este servidor?');
    expect(buttons(h).map((b) => b.label)).toEqual(['Borrar todo', 'Cancelar']);
    await h.run(buttonPress(buttons(h)[0]!.custom_id, { locale: 'es-ES' }, MessageFlags.Ephemeral));
    expect(answer(h, 1).data.embeds[0]!.title).toBe('Datos del servidor borrados');
    const post = auditPosts(h.discord.recorder)[0]!.body as AuditPostBody;
    expect(post.embeds[0]!.title).toBe('Se borraron los datos de feedbot de este servidor');
    expect(await h.keys.has(GUILD_ID)).toBe(false);
  });

  botTest('a member without Manage Server is refused and nothing is asked', async ({ bot: h }) => {
    await storeEverything(h);
    await h.run(forget({ userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(answer(h, 0).data.embeds[0]!.description).toMatch(/Manage Server/);
    expect(answer(h, 0).data.components ?? []).toEqual([]);
    expect(await h.keys.has(GUILD_ID)).toBe(true);
  });
});
