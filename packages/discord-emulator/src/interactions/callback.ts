/**
 * `POST /interactions/{id}/{token}/callback`: the bot's one acknowledgement of an interaction,
 * checked as Discord checks it (deadline, response type allowed for the interaction's kind, data:
 * callback-checks.ts), then applied. The answer to an interaction delivered over HTTP goes
 * through here too (http-delivery/answer.ts).
 */
import { InteractionResponseType, type APIApplicationCommandOptionChoice, type APIModalInteractionResponseCallbackData } from 'discord-api-types/v10';
import { alreadyAcknowledged, noContent, ok, unknownInteraction, type RestResult } from '../errors.js';
import { emitMessage } from '../events.js';
import type { StoredMessage, UploadedFile } from '../messages.js';
import { MessageFlag, isObject } from '../validation/fields.js';
import { checkResponseData, checkResponseType } from './callback-checks.js';
import type { InteractionRecord } from './registry.js';
import { CREATE_FLAGS, createResponseMessage, hasFlag, numberOr, type ResponseContext } from './response-message.js';

/** Applies one checked response to the interaction; returns the message it shows, if any. */
function applyResponse(ctx: ResponseContext, rec: InteractionRecord, type: number, data: unknown, files: UploadedFile[]): StoredMessage | undefined {
  switch (type) {
    case InteractionResponseType.ChannelMessageWithSource: {
      const d = data as Record<string, unknown>;
      const stored = createResponseMessage(ctx, rec, d, numberOr(d.flags, 0) & CREATE_FLAGS, files);
      rec.originalId = stored.message.id;
      return stored;
    }
    case InteractionResponseType.DeferredChannelMessageWithSource: {
      const ephemeral = numberOr(isObject(data) ? data.flags : undefined, 0) & MessageFlag.Ephemeral;
      const stored = createResponseMessage(ctx, rec, { content: '' }, ephemeral | MessageFlag.Loading, []);
      rec.originalId = stored.message.id;
      return stored;
    }
    case InteractionResponseType.DeferredMessageUpdate:
      rec.originalId = rec.sourceMessageId ?? null;
      return undefined;
    case InteractionResponseType.UpdateMessage: {
      // callback-checks.ts made sure the source message exists.
      const source = ctx.messages.live(rec.sourceMessageId!)!;
      const stored = ctx.messages.edit(source, isObject(data) ? data : {}, files);
      emitMessage(ctx.events, 'update', stored.message, stored.interactionId);
      rec.originalId = source.message.id;
      return stored;
    }
    case InteractionResponseType.ApplicationCommandAutocompleteResult:
      rec.choices = (data as { choices: APIApplicationCommandOptionChoice[] }).choices;
      return undefined;
    default:
      rec.modal = data as unknown as APIModalInteractionResponseCallbackData;
      return undefined;
  }
}

/** `?with_response=true`: the interaction callback response Discord returns. */
function callbackResponse(rec: InteractionRecord, type: number, stored: StoredMessage | undefined): RestResult {
  const message = stored?.message;
  const createsMessage = type === InteractionResponseType.ChannelMessageWithSource || type === InteractionResponseType.UpdateMessage;
  return ok({
    interaction: {
      id: rec.id,
      type: rec.payload.type,
      ...(message
        ? {
            response_message_id: message.id,
            response_message_loading: hasFlag(message, MessageFlag.Loading),
            response_message_ephemeral: hasFlag(message, MessageFlag.Ephemeral),
          }
        : {}),
    },
    resource: { type, ...(createsMessage && message ? { message } : {}) },
  });
}

export function interactionCallback(
  ctx: ResponseContext,
  id: string,
  token: string,
  body: unknown,
  withResponse: boolean,
  files: UploadedFile[],
): RestResult {
  const rec = ctx.registry.get(id);
  if (!rec || rec.token !== token) return unknownInteraction();
  // Counted whatever the outcome; every outcome below reports a change of the record (acknowledged,
  // or refused and noted against it).
  rec.callbacks++;
  if (rec.ack) return alreadyAcknowledged(rec.id);
  // Expired: the deadline passed, or the answer to an HTTP delivery failed it.
  if (rec.state === 'expired') return unknownInteraction(rec.id);
  if (Date.now() > rec.ackDeadlineAt) {
    ctx.registry.expire(rec);
    return unknownInteraction(rec.id);
  }
  const type = checkResponseType(rec, body);
  if (typeof type !== 'number') return type;
  const payload = body as Record<string, unknown>;
  const refused = checkResponseData(ctx, rec, type, payload);
  if (refused) return refused;
  const message = applyResponse(ctx, rec, type, payload.data, files);
  ctx.registry.acknowledged(rec, type, withResponse);
  return withResponse ? callbackResponse(rec, type, message) : noContent();
}
