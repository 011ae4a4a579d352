/**
 * `/webhooks/{application}/{token}…`: what the interaction token allows once the interaction was
 * acknowledged with a message response, for the token's lifetime: follow-ups, and reading,
 * editing or deleting the original response and the follow-ups.
 */
import { InteractionResponseType, type APIMessage } from 'discord-api-types/v10';
import { emptyMessage, invalidFormBody, invalidWebhookToken, noContent, ok, unknownMessage, unknownWebhook, type RestResult } from '../errors.js';
import { emitMessage } from '../events.js';
import type { StoredMessage, UploadedFile } from '../messages.js';
import { MessageFlag, isObject } from '../validation/fields.js';
import { validateMessagePayload } from '../validation/messages.js';
import { checkMessageComponentsAgainstSpec } from '../validation/openapi/message-spec.js';
import type { InteractionRecord } from './registry.js';
import { CREATE_FLAGS, createResponseMessage, hasFlag, numberOr, type ResponseContext } from './response-message.js';

function webhook(ctx: ResponseContext, appId: string, token: string): InteractionRecord | RestResult {
  const rec = ctx.registry.withToken(token);
  if (!rec || appId !== ctx.applicationId) return unknownWebhook();
  if (Date.now() > rec.tokenExpiresAt) return invalidWebhookToken(rec.id);
  // The webhook exists only once the interaction has been acknowledged with a message response.
  if (!rec.ack || rec.ack.type === InteractionResponseType.ApplicationCommandAutocompleteResult) return unknownWebhook(rec.id);
  return rec;
}

const nonEmpty = (v: unknown): boolean => (typeof v === 'string' ? v.length > 0 : Array.isArray(v) && v.length > 0);

/** Discord refuses an edit that leaves a message with nothing to show (50006). */
function wouldBeEmpty(message: APIMessage, patch: Record<string, unknown>, files: UploadedFile[]): boolean {
  const pick = (key: 'content' | 'embeds' | 'components' | 'attachments') => (key in patch ? patch[key] : message[key]);
  return !nonEmpty(pick('content')) && !nonEmpty(pick('embeds')) && !nonEmpty(pick('components')) && !nonEmpty(pick('attachments')) && files.length === 0;
}

/** POST /webhooks/{app}/{token}: a follow-up (or, after a defer, the deferred reply itself). */
export function followUp(ctx: ResponseContext, appId: string, token: string, body: unknown, wait: boolean, files: UploadedFile[]): RestResult {
  const rec = webhook(ctx, appId, token);
  if ('status' in rec) return rec;
  const check = validateMessagePayload(body, { requireContent: true });
  if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
  if (check.empty) return emptyMessage(rec.id);
  const spec = checkMessageComponentsAgainstSpec(body);
  if (!spec.ok) return invalidFormBody(spec, rec.id);
  const data = body as Record<string, unknown>;
  const original = rec.originalId ? ctx.messages.live(rec.originalId) : undefined;
  let stored: StoredMessage;
  if (rec.ack?.type === InteractionResponseType.DeferredChannelMessageWithSource && original && hasFlag(original.message, MessageFlag.Loading)) {
    // Discord turns the first follow-up after a defer into the deferred reply; its ephemeral
    // state was fixed by the defer.
    stored = ctx.messages.edit(original, data, files);
    emitMessage(ctx.events, 'update', stored.message, rec.id);
  } else {
    stored = createResponseMessage(ctx, rec, data, numberOr(data.flags, 0) & CREATE_FLAGS, files, true);
    rec.followUpIds.push(stored.message.id);
  }
  ctx.registry.changed(rec);
  return wait ? ok(stored.message) : noContent();
}

/** GET, PATCH, DELETE /webhooks/{app}/{token}/messages/{id | @original}. */
export function webhookMessage(
  ctx: ResponseContext,
  method: 'GET' | 'PATCH' | 'DELETE',
  appId: string,
  token: string,
  messageId: string,
  body: unknown,
  files: UploadedFile[],
): RestResult {
  const rec = webhook(ctx, appId, token);
  if ('status' in rec) return rec;
  const id = messageId === '@original' ? rec.originalId : messageId;
  const belongs = id !== null && (id === rec.originalId || rec.followUpIds.includes(id));
  const stored = belongs && id ? ctx.messages.live(id) : undefined;
  if (!stored) return unknownMessage(rec.id);
  if (method === 'GET') return ok(stored.message);
  if (method === 'DELETE') {
    ctx.messages.delete(stored);
    if (id === rec.originalId) rec.originalDeleted = true;
    emitMessage(ctx.events, 'delete', stored.message, rec.id);
    ctx.registry.changed(rec);
    return noContent();
  }
  const check = validateMessagePayload(body ?? {}, { requireContent: false, existingFlags: numberOr(stored.message.flags, 0) });
  if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
  const spec = checkMessageComponentsAgainstSpec(body);
  if (!spec.ok) return invalidFormBody(spec, rec.id);
  const patch = isObject(body) ? body : {};
  if (wouldBeEmpty(stored.message, patch, files)) return emptyMessage(rec.id);
  const edited = ctx.messages.edit(stored, patch, files).message;
  emitMessage(ctx.events, 'update', edited, rec.id);
  ctx.registry.changed(rec);
  return ok(edited);
}
