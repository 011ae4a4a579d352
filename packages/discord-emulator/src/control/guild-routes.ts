/**
 * Control routes that play a server's admins and its users' files (README, "Control API"):
 * channels created and deleted, permission overwrites, role permissions, the bot's roles, and
 * files uploaded for attachment options.
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { ATTACHMENT_SIZE_LIMIT } from '../attachments.js';
import type { DiscordEmulator } from '../emulator.js';
import { GuildChangeError } from '../guild-changes.js';
import { readBody } from '../http.js';
import { ControlError, jsonBody, parse, Permissions, Snowflake, type ControlResult } from './common.js';

const Overwrite = z.object({
  type: z.union([z.literal(0), z.literal(1)]),
  allow: Permissions.optional(),
  deny: Permissions.optional(),
});
const ChannelSchema = z.object({
  name: z.string().min(1).max(100),
  type: z.number().int().min(0).optional(),
  parentId: Snowflake.optional(),
  topic: z.string().max(1024).optional(),
  position: z.number().int().min(0).optional(),
  permissionOverwrites: z.array(Overwrite.extend({ id: Snowflake })).max(100).optional(),
});
const BotRolesSchema = z.object({ roles: z.array(Snowflake).max(250) });
const RoleSchema = z.object({ permissions: Permissions });
const UploadQuery = z.object({ filename: z.string().min(1).max(1024).regex(/^[^/\\]+$/, 'must be a file name, not a path') });

/** The route for `key` (`POST /guilds/:id/channels`, …), or undefined when it is not one of these. */
export function guildRoute(emulator: DiscordEmulator, key: string, req: IncomingMessage, segments: string[], url: URL): Promise<ControlResult> | undefined {
  const [, b, , d] = segments;
  const botMember = (guildId: string, channelId?: string) => ({
    member: emulator.botMember(guildId),
    permissions: emulator.botPermissions(guildId),
    ...(channelId ? { channelPermissions: emulator.botPermissions(guildId, channelId) } : {}),
  });
  const routes: Record<string, () => Promise<ControlResult> | ControlResult> = {
    'POST /guilds/:id/channels': async () => {
      const body = parse(ChannelSchema, await jsonBody(req));
      const overwrites = body.permissionOverwrites?.map((o) => ({ id: o.id, type: o.type, allow: o.allow ?? '0', deny: o.deny ?? '0' }));
      return { status: 201, body: emulator.createChannel(b!, { ...body, permissionOverwrites: overwrites }) };
    },
    'GET /guilds/:id/bot-member': () => {
      const channelId = url.searchParams.get('channelId') ?? undefined;
      if (channelId !== undefined) parse(Snowflake, channelId);
      return { status: 200, body: botMember(b!, channelId) };
    },
    // The bot removed from the guild and added back (GUILD_DELETE / GUILD_CREATE), as an admin would.
    'DELETE /guilds/:id/bot': () => ({ status: 200, body: { guildId: b!, member: false, shards: emulator.removeBotFromGuild(b!) } }),
    'PUT /guilds/:id/bot': () => ({ status: 200, body: { guildId: b!, member: true, shards: emulator.addBotToGuild(b!) } }),
    'PUT /guilds/:id/bot-member': async () => {
      const { roles } = parse(BotRolesSchema, await jsonBody(req));
      emulator.setBotRoles(b!, roles);
      return { status: 200, body: botMember(b!) };
    },
    'PATCH /guilds/:id/roles/:id': async () => {
      const { permissions } = parse(RoleSchema, await jsonBody(req));
      return { status: 200, body: emulator.setRolePermissions(b!, d!, permissions) };
    },
    'GET /channels/:id': () => {
      const channel = emulator.channel(b!);
      if (!channel) throw new ControlError(404, `unknown channel ${b}`);
      return { status: 200, body: channel };
    },
    'DELETE /channels/:id': () => ({ status: 200, body: emulator.deleteChannel(b!) }),
    'PUT /channels/:id/permissions/:id': async () => {
      const overwrite = parse(Overwrite, await jsonBody(req));
      parse(Snowflake, d);
      return { status: 200, body: emulator.setPermissionOverwrite(b!, d!, overwrite) };
    },
    'DELETE /channels/:id/permissions/:id': () => ({ status: 200, body: emulator.deletePermissionOverwrite(b!, d!) }),
    'POST /attachments': async () => {
      const { filename } = parse(UploadQuery, Object.fromEntries(url.searchParams));
      // Discord's upload limit; a bigger body is refused (413) before it is all read.
      const data = await readBody(req, ATTACHMENT_SIZE_LIMIT);
      return { status: 201, body: emulator.uploadAttachment({ filename, data, contentType: req.headers['content-type'] }) };
    },
  };
  const route = routes[key];
  if (!route) return undefined;
  return Promise.resolve()
    .then(route)
    .catch((error: unknown) => {
      if (error instanceof GuildChangeError) throw new ControlError(error.status, error.message);
      throw error;
    });
}
