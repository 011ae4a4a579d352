/**
 * Messages posted by someone other than the bot: a member typing in a channel, or a webhook (a
 * service forwarding posts into the channel). The bot never created them, so nothing else puts
 * them in the message store; tests post them to have something to right-click (a message
 * command's target). Validated as a create body is (validation/messages.ts and Discord's OpenAPI
 * document), from a member of the channel's guild or a webhook, never as the bot. A member's or
 * webhook's message carries no components (only applications send those), so none are taken.
 * No MESSAGE_CREATE is dispatched: the bot asks for no message intent.
 */
import type { APIMessage } from 'discord-api-types/v10';
import { z } from 'zod';
import { Snowflake } from './control/common.js';
import { emitMessage, type EmulatorEvents } from './events.js';
import type { GuildDirectory } from './guild-directory.js';
import { makeUser } from './guilds.js';
import type { MessageStore } from './messages.js';
import { InteractionInputError } from './payloads/options.js';
import { validateMessagePayload } from './validation/messages.js';
import { checkMessageCreateAgainstSpec } from './validation/openapi/message-spec.js';

const Name = z.string().min(1).max(80);

export const UserMessageSchema = z.object({
  channelId: Snowflake,
  content: z.string().optional(),
  embeds: z.array(z.record(z.string(), z.unknown())).optional(),
  /** A member of the channel's guild (`bot`: another application's bot user), or a webhook. */
  author: z.union([
    z.object({ id: Snowflake, username: z.string().min(1).max(32), bot: z.boolean().optional() }).strict(),
    z.object({ webhook: z.object({ id: Snowflake, name: Name }).strict() }).strict(),
  ]),
}).strict();
export type UserMessageInput = z.input<typeof UserMessageSchema>;

export interface UserMessageDeps {
  guilds: GuildDirectory;
  messages: MessageStore;
  events: EmulatorEvents;
  botUserId: string;
}

/** Stores the message as Discord would show it; throws InteractionInputError for what Discord would refuse. */
export function postUserMessage(deps: UserMessageDeps, input: UserMessageInput): APIMessage {
  const parsed = UserMessageSchema.safeParse(input);
  if (!parsed.success) throw new InteractionInputError(`invalid message: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const { channelId, author, ...data } = parsed.data;
  const found = deps.guilds.channel(channelId);
  if (!found) throw new InteractionInputError(`unknown channel ${channelId}`);
  const body = { ...(data.content !== undefined ? { content: data.content } : {}), ...(data.embeds ? { embeds: data.embeds } : {}) };
  const check = validateMessagePayload(body, { requireContent: true });
  if (!check.errors.ok) throw new InteractionInputError(`invalid message: ${JSON.stringify(check.errors.tree())}`);
  if (check.empty) throw new InteractionInputError('Cannot send an empty message');
  const spec = checkMessageCreateAgainstSpec(body);
  if (!spec.ok) throw new InteractionInputError(`invalid message: ${JSON.stringify(spec.tree())}`);

  let user;
  if ('webhook' in author) {
    // A webhook's messages are authored by a user object made of the webhook itself, flagged bot.
    user = makeUser(author.webhook.id, author.webhook.name, { bot: true });
  } else {
    if (author.id === deps.botUserId) throw new InteractionInputError('the bot posts through the REST API, not as a user message');
    if (!author.bot && !found.guild.members.some((m) => m.userId === author.id)) {
      throw new InteractionInputError(`user ${author.id} is not a member of guild ${found.guild.id}`);
    }
    user = makeUser(author.id, author.username, author.bot ? { bot: true } : {});
  }
  const stored = deps.messages.create({ channelId, guildId: found.guild.id, author: user, type: 0, flags: 0, data: body });
  if ('webhook' in author) (stored.message as { webhook_id?: string }).webhook_id = author.webhook.id;
  emitMessage(deps.events, 'create', stored.message, null);
  return structuredClone(stored.message);
}
