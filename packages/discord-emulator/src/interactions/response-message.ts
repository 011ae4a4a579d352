/** The messages an interaction's token creates: replies and follow-ups, as the app's webhook. */
import { InteractionType, type APIMessage, type APIUser } from 'discord-api-types/v10';
import { emitMessage, type EmulatorEvents } from '../events.js';
import type { MessageStore, StoredMessage, UploadedFile } from '../messages.js';
import { MessageFlag } from '../validation/fields.js';
import type { InteractionRecord, InteractionRegistry } from './registry.js';

/** What answering an interaction needs: its records, the messages, and who the bot is. */
export interface ResponseContext {
  applicationId: string;
  botUser: APIUser;
  registry: InteractionRegistry;
  messages: MessageStore;
  events: EmulatorEvents;
}

/** Flags a bot may set on a new message. */
export const CREATE_FLAGS = MessageFlag.SuppressEmbeds | MessageFlag.Ephemeral | MessageFlag.SuppressNotifications | MessageFlag.IsComponentsV2;

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function hasFlag(message: APIMessage, flag: number): boolean {
  return (numberOr(message.flags, 0) & flag) !== 0;
}

/** `interaction_metadata` of a response: which interaction (and, for modals, which command) made it. */
function interactionMetadata(rec: InteractionRecord, followUp: boolean): APIMessage['interaction_metadata'] {
  const user = rec.ctx.user;
  const owners = { '0': rec.ctx.guild.id };
  const common = { id: rec.id, user, authorizing_integration_owners: owners };
  let metadata: Record<string, unknown>;
  if (rec.kind === 'component') {
    metadata = { ...common, type: InteractionType.MessageComponent, interacted_message_id: rec.sourceMessageId };
  } else if (rec.kind === 'modal_submit') {
    const trigger = { id: rec.sourceInteractionId, type: InteractionType.ApplicationCommand, user, authorizing_integration_owners: owners };
    metadata = { ...common, type: InteractionType.ModalSubmit, triggering_interaction_metadata: trigger };
  } else {
    metadata = { ...common, type: InteractionType.ApplicationCommand };
  }
  if (followUp && rec.originalId) metadata.original_response_message_id = rec.originalId;
  return metadata as unknown as APIMessage['interaction_metadata'];
}

export function createResponseMessage(
  ctx: ResponseContext,
  rec: InteractionRecord,
  data: Record<string, unknown>,
  flags: number,
  files: UploadedFile[],
  followUp = false,
): StoredMessage {
  const stored = ctx.messages.create({
    channelId: rec.ctx.channel.id,
    guildId: rec.ctx.guild.id,
    author: ctx.botUser,
    applicationId: ctx.applicationId,
    // 20 = CHAT_INPUT_COMMAND reply; component and modal replies are plain messages.
    type: rec.kind === 'command' ? 20 : 0,
    flags,
    data,
    files,
    interactionId: rec.id,
    interactionMetadata: interactionMetadata(rec, followUp),
  });
  emitMessage(ctx.events, 'create', stored.message, rec.id);
  return stored;
}
