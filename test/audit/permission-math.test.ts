/**
 * Discord's permission algorithm from raw REST data (HTTP mode), checked case by case and against
 * discord.js's own computation from its cache for the same guild (what the gateway path uses).
 */
import { describe, expect, it } from 'vitest';
import { OverwriteType, PermissionFlagsBits as P, PermissionsBitField } from 'discord.js';
import { channelPermissions, type MemberInChannel, type PermissionOverwrite } from '../../src/audit/permission-math.js';
import { missingPostPermissions } from '../../src/audit/post-permissions.js';
import { createTestDiscord } from '../helpers/discord.js';
import { BOT_ID, BOT_ROLE_ID, loadIntoCache, type World } from './discord-world.js';

const GUILD = '1100000000000000001';
const OTHER_ROLE = '1500000000000000002';
const POST = P.ViewChannel | P.SendMessages | P.EmbedLinks;

function member(over: Partial<MemberInChannel> = {}): MemberInChannel {
  return {
    guildId: GUILD,
    memberId: BOT_ID,
    memberRoleIds: [BOT_ROLE_ID],
    rolePermissions: new Map([
      [GUILD, P.ViewChannel | P.SendMessages],
      [BOT_ROLE_ID, P.EmbedLinks],
      [OTHER_ROLE, P.ManageMessages],
    ]),
    overwrites: [],
    ...over,
  };
}

const role = (id: string, o: { allow?: bigint; deny?: bigint }): PermissionOverwrite => ({ id, type: OverwriteType.Role, allow: o.allow ?? 0n, deny: o.deny ?? 0n });
const user = (id: string, o: { allow?: bigint; deny?: bigint }): PermissionOverwrite => ({ id, type: OverwriteType.Member, allow: o.allow ?? 0n, deny: o.deny ?? 0n });

describe('channelPermissions (Discord’s documented algorithm)', () => {
  it('adds @everyone and the member’s roles, ignoring roles the member lacks', () => {
    const p = channelPermissions(member());
    expect(p & POST).toBe(POST);
    expect(p & P.ManageMessages).toBe(0n);
  });

  it('Administrator allows everything, whatever the overwrites deny', () => {
    const rolePermissions = new Map([[GUILD, 0n], [BOT_ROLE_ID, P.Administrator]]);
    const p = channelPermissions(member({ rolePermissions, overwrites: [user(BOT_ID, { deny: POST })] }));
    expect(p).toBe(PermissionsBitField.All);
  });

  it('applies @everyone, then the roles (allow beats deny among them), then the member', () => {
    const everyoneDenies = member({ overwrites: [role(GUILD, { deny: P.SendMessages | P.EmbedLinks })] });
    expect(channelPermissions(everyoneDenies) & POST).toBe(P.ViewChannel);

    const roleAllowsBack = member({ overwrites: [role(GUILD, { deny: P.SendMessages }), role(BOT_ROLE_ID, { allow: P.SendMessages })] });
    expect(channelPermissions(roleAllowsBack) & POST).toBe(POST);

    // Two roles of the member: one denies, one allows: the allow wins.
    const twoRoles = member({
      memberRoleIds: [BOT_ROLE_ID, OTHER_ROLE],
      overwrites: [role(BOT_ROLE_ID, { deny: P.EmbedLinks }), role(OTHER_ROLE, { allow: P.EmbedLinks })],
    });
    expect(channelPermissions(twoRoles) & POST).toBe(POST);

    // A role overwrite for a role the member does not have changes nothing.
    expect(channelPermissions(member({ overwrites: [role(OTHER_ROLE, { deny: POST })] })) & POST).toBe(POST);

    const memberDenies = member({ overwrites: [role(BOT_ROLE_ID, { allow: P.SendMessages }), user(BOT_ID, { deny: P.SendMessages })] });
    expect(channelPermissions(memberDenies) & POST).toBe(P.ViewChannel | P.EmbedLinks);
  });

  it('a channel the bot could not read: View Channel denied, the rest from the base', () => {
    expect(channelPermissions(member({ overwrites: undefined })) & POST).toBe(P.SendMessages | P.EmbedLinks);
  });
});

describe('the REST computation agrees with discord.js’s from its cache', () => {
  const world: World = {
    guildId: GUILD,
    everyone: P.ViewChannel | P.SendMessages | P.EmbedLinks,
    botRole: 0n,
    channels: [
      { id: '1300000000000000010', name: 'open' },
      { id: '1300000000000000011', name: 'no-embeds', overwrites: [{ id: GUILD, type: OverwriteType.Role, deny: P.EmbedLinks | P.SendMessages }] },
      {
        id: '1300000000000000012',
        name: 'role-allows',
        overwrites: [
          { id: GUILD, type: OverwriteType.Role, deny: POST },
          { id: BOT_ROLE_ID, type: OverwriteType.Role, allow: POST },
        ],
      },
      {
        id: '1300000000000000013',
        name: 'member-denies',
        overwrites: [
          { id: BOT_ROLE_ID, type: OverwriteType.Role, allow: POST },
          { id: BOT_ID, type: OverwriteType.Member, deny: P.ViewChannel },
        ],
      },
    ],
  };

  it.each([
    ['1300000000000000010', []],
    ['1300000000000000011', ['SendMessages', 'EmbedLinks']],
    ['1300000000000000012', []],
    ['1300000000000000013', ['ViewChannel']],
  ])('channel %s: missing %j', async (channelId, missing) => {
    const discord = createTestDiscord();
    try {
      loadIntoCache(discord.client, world);
      const cached = discord.client.guilds.cache.get(GUILD)!.channels.cache.get(channelId)!;
      const me = discord.client.guilds.cache.get(GUILD)!.members.me!;
      const fromCache = cached.permissionsFor(me)!.bitfield & POST;
      const c = world.channels.find((ch) => ch.id === channelId)!;
      const fromRest = channelPermissions({
        guildId: GUILD,
        memberId: BOT_ID,
        memberRoleIds: [BOT_ROLE_ID],
        rolePermissions: new Map([[GUILD, world.everyone], [BOT_ROLE_ID, world.botRole]]),
        overwrites: (c.overwrites ?? []).map((o) => ({ id: o.id, type: o.type, allow: o.allow ?? 0n, deny: o.deny ?? 0n })),
      });
      expect(fromRest & POST).toBe(fromCache);
      expect(await missingPostPermissions(discord.client, GUILD, channelId)).toEqual(missing);
      // From the cache: not one request to Discord.
      expect(discord.calls).toEqual([]);
    } finally {
      await discord.destroy();
    }
  });
});
