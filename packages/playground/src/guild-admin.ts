/**
 * The demo server itself, beside the conversations with the bot: its channels, which the page's
 * owner creates and deletes as in Discord (the emulator tells the bot with CHANNEL_CREATE and
 * CHANNEL_DELETE), and the messages posted in them that are not answers to anyone's interaction:
 * the bot's own (the audit channel's embeds) and the forwarding service's, through its webhook.
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { APIMessage } from 'discord-api-types/v10';
import { GuildChangeError, type DiscordEmulator } from '@feedbot/discord-emulator';
import { HttpError, parseWith, readJson } from './http.js';
import { Who, type ActorKey, type PlaygroundActor } from './actors.js';
const CreateChannelSchema = z.object({ name: z.string().trim().min(1).max(100), type: z.union([z.literal(0), z.literal(5)]).default(0), ...Who });
const DeleteChannelSchema = z.object(Who);

export interface GuildAdminDeps {
  emulator: DiscordEmulator;
  guildId: string;
  actors: Record<ActorKey, PlaygroundActor>;
}

/** A message posted in a channel by the bot itself or by a webhook: not an interaction's answer. */
export const isChannelPost = (m: APIMessage): boolean => !m.interaction_metadata;

export function createGuildAdmin(deps: GuildAdminDeps) {
  const { emulator, guildId } = deps;

  /** Only the server's owner manages its channels here, as only they could in the demo server. */
  function requireOwner(actor: ActorKey): void {
    const owner = emulator.guild(guildId)?.ownerId;
    if (deps.actors[actor].userId !== owner) throw new HttpError(403, 'only the server owner manages its channels in the playground');
  }

  /** Runs an emulator change, turning what it refuses into the same 4xx answer. */
  function change<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof GuildChangeError) throw new HttpError(error.status, error.message);
      throw error;
    }
  }

  function posts(): APIMessage[] {
    return emulator.messages({ guildId }).filter(isChannelPost);
  }

  async function createChannel(req: IncomingMessage) {
    const { name, type, actor } = parseWith(CreateChannelSchema, await readJson(req));
    requireOwner(actor);
    // New channels join the server's one category, as the category's + does in Discord.
    const category = emulator.guild(guildId)?.channels.find((c) => c.type === 4);
    return change(() => emulator.createChannel(guildId, { name, type, ...(category ? { parentId: category.id } : {}) }));
  }

  async function deleteChannel(req: IncomingMessage, channelId: string) {
    const { actor } = parseWith(DeleteChannelSchema, await readJson(req));
    requireOwner(actor);
    const channel = emulator.guild(guildId)?.channels.find((c) => c.id === channelId);
    if (!channel) throw new HttpError(404, 'unknown channel');
    return change(() => emulator.deleteChannel(channelId));
  }

  /** Answers the routes it owns; undefined for any other. */
  async function route(req: IncomingMessage, method: string, path: string): Promise<{ status: number; body: unknown } | undefined> {
    if (method === 'GET' && path === '/api/posts') return { status: 200, body: { posts: posts() } };
    if (method === 'POST' && path === '/api/channels') return { status: 201, body: await createChannel(req) };
    const one = /^\/api\/channels\/(\d{15,21})$/.exec(path);
    if (method === 'DELETE' && one) return { status: 200, body: await deleteChannel(req, one[1]!) };
    return undefined;
  }

  return { route };
}
