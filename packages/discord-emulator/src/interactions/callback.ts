/**
 * `POST /interactions/{id}/{token}/callback`: the bot's one acknowledgement of an interaction,
 * checked as Discord checks it (deadline, response type allowed for the interaction's kind, data).
 */
import { InteractionResponseType, type APIApplicationCommandOptionChoice, type APIModalInteractionResponseCallbackData } from 'discord-api-types/v10';
import {
  alreadyAcknowledged,
  discordError,
  emptyMessage,
  FormErrors,
  invalidFormBody,
  noContent,
  ok,
  unknownInteraction,
  unknownMessage,
  type RestResult,
} from '../errors.js';
import { emitMessage } from '../events.js';
import type { StoredMessage, UploadedFile } from '../messages.js';
import type { InteractionKind } from '../types.js';
import { MessageFlag, isObject } from '../validation/fields.js';
import { validateMessagePayload } from '../validation/messages.js';
import { validateAutocompleteData, validateModalData } from '../validation/modals.js';
import type { InteractionRecord } from './registry.js';
import { CREATE_FLAGS, createResponseMessage, hasFlag, numberOr, type ResponseContext } from './response-message.js';

const ALLOWED_RESPONSES: Record<InteractionKind, number[]> = {
  command: [InteractionResponseType.ChannelMessageWithSource, InteractionResponseType.DeferredChannelMessageWithSource, InteractionResponseType.Modal],
  autocomplete: [InteractionResponseType.ApplicationCommandAutocompleteResult],
  component: [
    InteractionResponseType.ChannelMessageWithSource,
    InteractionResponseType.DeferredChannelMessageWithSource,
    InteractionResponseType.DeferredMessageUpdate,
    InteractionResponseType.UpdateMessage,
    InteractionResponseType.Modal,
  ],
  modal_submit: [
    InteractionResponseType.ChannelMessageWithSource,
    InteractionResponseType.DeferredChannelMessageWithSource,
    InteractionResponseType.DeferredMessageUpdate,
    InteractionResponseType.UpdateMessage,
  ],
};

/** A rejection, or what the response made (the message shown, if any). */
type Applied = RestResult | { message: StoredMessage | undefined };

/** Applies one response type's data to the interaction (nothing is changed when it is rejected). */
function applyResponse(ctx: ResponseContext, rec: InteractionRecord, type: number, data: unknown, files: UploadedFile[]): Applied {
  switch (type) {
    case InteractionResponseType.ChannelMessageWithSource: {
      const check = validateMessagePayload(data, { path: ['data'], requireContent: true });
      if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
      if (check.empty) return emptyMessage(rec.id);
      const d = data as Record<string, unknown>;
      const stored = createResponseMessage(ctx, rec, d, numberOr(d.flags, 0) & CREATE_FLAGS, files);
      rec.originalId = stored.message.id;
      return { message: stored };
    }
    case InteractionResponseType.DeferredChannelMessageWithSource: {
      const e = new FormErrors();
      if (data !== undefined && data !== null && !isObject(data)) e.add(['data'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
      const flags = isObject(data) ? data.flags : undefined;
      if (flags !== undefined && flags !== null && (typeof flags !== 'number' || !Number.isInteger(flags))) {
        e.add(['data', 'flags'], 'NUMBER_TYPE_COERCE', `Value "${String(flags)}" is not int.`);
      }
      if (!e.ok) return invalidFormBody(e, rec.id);
      const ephemeral = numberOr(flags, 0) & MessageFlag.Ephemeral;
      const stored = createResponseMessage(ctx, rec, { content: '' }, ephemeral | MessageFlag.Loading, []);
      rec.originalId = stored.message.id;
      return { message: stored };
    }
    case InteractionResponseType.DeferredMessageUpdate:
      rec.originalId = rec.sourceMessageId ?? null;
      return { message: undefined };
    case InteractionResponseType.UpdateMessage: {
      const source = rec.sourceMessageId ? ctx.messages.live(rec.sourceMessageId) : undefined;
      if (!source) return unknownMessage(rec.id);
      const check = validateMessagePayload(data ?? {}, { path: ['data'], requireContent: false, existingFlags: numberOr(source.message.flags, 0) });
      if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
      const stored = ctx.messages.edit(source, isObject(data) ? data : {}, files);
      emitMessage(ctx.events, 'update', stored.message, stored.interactionId);
      rec.originalId = source.message.id;
      return { message: stored };
    }
    case InteractionResponseType.ApplicationCommandAutocompleteResult: {
      const errors = validateAutocompleteData(data);
      if (!errors.ok) return invalidFormBody(errors, rec.id);
      rec.choices = (data as { choices: APIApplicationCommandOptionChoice[] }).choices;
      return { message: undefined };
    }
    default: {
      // InteractionResponseType.Modal, the one type left once the allowed types were checked.
      const errors = validateModalData(data);
      if (!errors.ok) return invalidFormBody(errors, rec.id);
      rec.modal = data as unknown as APIModalInteractionResponseCallbackData;
      return { message: undefined };
    }
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
  if (rec.ack) return alreadyAcknowledged(rec.id);
  if (Date.now() > rec.ackDeadlineAt) {
    ctx.registry.expire(rec);
    return unknownInteraction(rec.id);
  }
  if (!isObject(body)) {
    const e = new FormErrors();
    e.add([], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return invalidFormBody(e, rec.id);
  }
  const type = body.type;
  const allowed = ALLOWED_RESPONSES[rec.kind];
  const needsMessage = type === InteractionResponseType.DeferredMessageUpdate || type === InteractionResponseType.UpdateMessage;
  if (typeof type !== 'number' || !allowed.includes(type) || (needsMessage && !rec.sourceMessageId)) {
    const e = new FormErrors();
    e.add(['type'], 'INTERACTION_RESPONSE_TYPE_INVALID', `Interaction response type ${String(type)} is not valid for this interaction; expected one of ${allowed.join(', ')}`);
    return discordError(400, 50035, 'Invalid Form Body', 'invalid_response_type', { errors: e.tree(), interactionId: rec.id });
  }
  const applied = applyResponse(ctx, rec, type, body.data, files);
  if ('status' in applied) return applied;
  ctx.registry.acknowledged(rec, type, withResponse);
  return withResponse ? callbackResponse(rec, type, applied.message) : noContent();
}
