/**
 * What Discord refuses in an interaction response before it changes anything: a type the
 * interaction's kind does not allow, data breaking the emulator's rules (validation/), then
 * anything Discord's OpenAPI document refuses (validation/openapi/). Used for the callback route
 * and for the answer to an interaction delivered over HTTP alike.
 */
import { InteractionResponseType } from 'discord-api-types/v10';
import { discordError, emptyMessage, FormErrors, invalidFormBody, unknownMessage, type RestResult } from '../errors.js';
import type { InteractionKind } from '../types.js';
import { isObject } from '../validation/fields.js';
import { validateMessagePayload } from '../validation/messages.js';
import { validateAutocompleteData, validateModalData } from '../validation/modals.js';
import { checkCallbackAgainstSpec } from '../validation/openapi/callback-spec.js';
import type { InteractionRecord } from './registry.js';
import { numberOr, type ResponseContext } from './response-message.js';

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

/** The response's type, or Discord's refusal of it (not a dictionary, or not allowed for this interaction). */
export function checkResponseType(rec: InteractionRecord, body: unknown): number | RestResult {
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
  return type;
}

/** Discord's refusal of the response's data, or undefined when it may be applied. */
export function checkResponseData(ctx: ResponseContext, rec: InteractionRecord, type: number, body: Record<string, unknown>): RestResult | undefined {
  const refused = checkOwnRules(ctx, rec, type, body.data);
  if (refused) return refused;
  const spec = checkCallbackAgainstSpec(body);
  return spec.ok ? undefined : invalidFormBody(spec, rec.id);
}

function checkOwnRules(ctx: ResponseContext, rec: InteractionRecord, type: number, data: unknown): RestResult | undefined {
  switch (type) {
    case InteractionResponseType.ChannelMessageWithSource: {
      const check = validateMessagePayload(data, { path: ['data'], requireContent: true });
      if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
      return check.empty ? emptyMessage(rec.id) : undefined;
    }
    case InteractionResponseType.DeferredChannelMessageWithSource: {
      const e = new FormErrors();
      if (data !== undefined && data !== null && !isObject(data)) e.add(['data'], 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
      const flags = isObject(data) ? data.flags : undefined;
      if (flags !== undefined && flags !== null && (typeof flags !== 'number' || !Number.isInteger(flags))) {
        e.add(['data', 'flags'], 'NUMBER_TYPE_COERCE', `Value "${String(flags)}" is not int.`);
      }
      return e.ok ? undefined : invalidFormBody(e, rec.id);
    }
    case InteractionResponseType.DeferredMessageUpdate:
      return undefined;
    case InteractionResponseType.UpdateMessage: {
      const source = rec.sourceMessageId ? ctx.messages.live(rec.sourceMessageId) : undefined;
      if (!source) return unknownMessage(rec.id);
      const check = validateMessagePayload(data ?? {}, { path: ['data'], requireContent: false, existingFlags: numberOr(source.message.flags, 0) });
      return check.errors.ok ? undefined : invalidFormBody(check.errors, rec.id);
    }
    case InteractionResponseType.ApplicationCommandAutocompleteResult: {
      const errors = validateAutocompleteData(data);
      return errors.ok ? undefined : invalidFormBody(errors, rec.id);
    }
    default: {
      // InteractionResponseType.Modal, the one type left once the allowed types were checked.
      const errors = validateModalData(data);
      return errors.ok ? undefined : invalidFormBody(errors, rec.id);
    }
  }
}
