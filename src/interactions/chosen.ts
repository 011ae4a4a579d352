/**
 * What a member chose (a channel, roles) belongs to the server the interaction came from. Discord
 * sends a choice as an id with its resolved data, and neither says which guild a channel or a role
 * is in: a forged or stale payload could name another server's channel (feeds forwarded there,
 * audit posts sent there) or a role that does not exist.
 *
 * Discord's REST API is asked, in both modes: over the gateway, discord.js has already added the
 * payload's resolved channels and roles to the guild's cache by the time a handler runs, so the
 * cache would vouch for the very data it is meant to check. These are rare admin writes; one GET
 * each is cheap. When Discord does not answer, nobody can say the choice is foreign: it is let
 * through (one warn line) rather than refuse every admin while Discord is unwell.
 */
import { DiscordAPIError, RESTJSONErrorCodes, Routes, type Client } from 'discord.js';
import { z } from 'zod';
import type { HandlerContext } from './context.js';
import { UserError } from './errors.js';

const ChannelSchema = z.looseObject({ guild_id: z.string().optional() });
const RolesSchema = z.array(z.looseObject({ id: z.string() }));

/**
 * Refuses a channel that is not one of this guild's. Returns Discord's answer for the channel when
 * it could be read, so a caller that needs more of it (its permission overwrites) asks only once.
 */
export async function requireGuildChannel(ctx: HandlerContext, client: Client, channelId: string): Promise<unknown> {
  const guildId = ctx.guildId();
  let channel: unknown;
  const found = await client.rest.get(Routes.channel(channelId)).then(
    (body) => {
      channel = body;
      return ChannelSchema.safeParse(body).data?.guild_id;
    },
    (error: unknown) => {
      if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownChannel) return null;
      // Missing Access: a channel the bot cannot see, maybe this guild's; it is not refused here.
      if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MissingAccess)) unchecked(ctx, 'channel', error);
      return undefined;
    },
  );
  if (found === null || (found !== undefined && found !== guildId)) throw new UserError('error.channelNotInGuild');
  return channel;
}

/** Refuses roles that are not this guild's. */
export async function requireGuildRoles(ctx: HandlerContext, client: Client, roleIds: readonly string[]): Promise<void> {
  if (roleIds.length === 0) return;
  const known = await client.rest
    .get(Routes.guildRoles(ctx.guildId()))
    .then((body) => new Set(RolesSchema.parse(body).map((r) => r.id)))
    .catch((error: unknown) => unchecked(ctx, 'roles', error));
  if (known && roleIds.some((id) => !known.has(id))) throw new UserError('error.roleNotInGuild');
}

function unchecked(ctx: HandlerContext, what: 'channel' | 'roles', error: unknown): undefined {
  ctx.services.logger.warn({ guildId: ctx.guildId(), err: error }, `the chosen ${what} could not be checked against the server; let through`);
  return undefined;
}
