/**
 * Interaction lifecycle, as Discord enforces it: one acknowledgement within the deadline (3 s),
 * then 15 minutes of webhook access with the token for edits, follow-ups and deletes.
 */
import {
  InteractionResponseType,
  InteractionType,
  type APIApplicationCommandOptionChoice,
  type APIInteraction,
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  type APIUser,
} from 'discord-api-types/v10';
import {
  alreadyAcknowledged,
  discordError,
  emptyMessage,
  FormErrors,
  invalidFormBody,
  invalidWebhookToken,
  noContent,
  ok,
  unknownInteraction,
  unknownMessage,
  unknownWebhook,
  type RestResult,
} from './errors.js';
import type { EmulatorEvents } from './events.js';
import type { MessageStore, StoredMessage, UploadedFile } from './messages.js';
import type { InteractionContext } from './payloads.js';
import type { InteractionError, InteractionKind, InteractionSnapshot, InteractionState, Violation } from './types.js';
import { MessageFlag, isObject, validateAutocompleteData, validateMessagePayload, validateModalData } from './validation.js';

export interface InteractionRecord {
  id: string;
  token: string;
  kind: InteractionKind;
  payload: APIInteraction;
  ctx: InteractionContext;
  shardId: number | null;
  commandName?: string;
  customId?: string;
  sourceMessageId?: string;
  sourceInteractionId?: string;
  createdAt: number;
  ackDeadlineAt: number;
  tokenExpiresAt: number;
  state: InteractionState;
  ack: InteractionSnapshot['ack'];
  originalId: string | null;
  originalDeleted: boolean;
  followUpIds: string[];
  modal: APIModalInteractionResponseCallbackData | null;
  choices: APIApplicationCommandOptionChoice[] | null;
  errors: InteractionError[];
  version: number;
  timer: NodeJS.Timeout | null;
}

export interface RegisterMeta {
  kind: InteractionKind;
  ctx: InteractionContext;
  shardId: number | null;
  commandName?: string;
  customId?: string;
  sourceMessageId?: string;
  sourceInteractionId?: string;
}

export interface InteractionRegistryDeps {
  applicationId: string;
  botUser: APIUser;
  ackDeadlineMs: number;
  tokenLifetimeMs: number;
  messages: MessageStore;
  events: EmulatorEvents;
  violation: (v: Omit<Violation, 'at'>) => void;
}

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

/** Flags a bot may set on a new message. */
const CREATE_FLAGS = MessageFlag.SuppressEmbeds | MessageFlag.Ephemeral | MessageFlag.SuppressNotifications | MessageFlag.IsComponentsV2;

export class InteractionRegistry {
  private readonly byId = new Map<string, InteractionRecord>();
  private readonly byToken = new Map<string, InteractionRecord>();

  constructor(private readonly deps: InteractionRegistryDeps) {}

  register(payload: APIInteraction, meta: RegisterMeta): InteractionRecord {
    const now = Date.now();
    const rec: InteractionRecord = {
      id: payload.id,
      token: payload.token,
      payload,
      ...meta,
      createdAt: now,
      ackDeadlineAt: now + this.deps.ackDeadlineMs,
      tokenExpiresAt: now + this.deps.tokenLifetimeMs,
      state: 'pending',
      ack: null,
      originalId: null,
      originalDeleted: false,
      followUpIds: [],
      modal: null,
      choices: null,
      errors: [],
      version: 0,
      timer: null,
    };
    rec.timer = setTimeout(() => this.expire(rec), this.deps.ackDeadlineMs);
    rec.timer.unref();
    this.byId.set(rec.id, rec);
    this.byToken.set(rec.token, rec);
    this.changed(rec);
    return rec;
  }

  get(id: string): InteractionRecord | undefined {
    return this.byId.get(id);
  }

  list(): InteractionRecord[] {
    return [...this.byId.values()];
  }

  /** Remembers a rejected call against the interaction it concerned. */
  noteError(id: string, error: InteractionError): void {
    const rec = this.byId.get(id);
    if (!rec) return;
    rec.errors.push(error);
    this.changed(rec);
  }

  close(): void {
    for (const rec of this.byId.values()) if (rec.timer) clearTimeout(rec.timer);
  }

  snapshot(rec: InteractionRecord): InteractionSnapshot {
    const original = rec.originalId ? this.deps.messages.get(rec.originalId) : undefined;
    const followUps = rec.followUpIds
      .map((id) => this.deps.messages.get(id))
      .filter((m): m is StoredMessage => m !== undefined && !m.deleted)
      .map((m) => structuredClone(m.message));
    return {
      id: rec.id,
      kind: rec.kind,
      type: rec.payload.type,
      guildId: rec.ctx.guild.id,
      channelId: rec.ctx.channel.id,
      userId: rec.ctx.user.id,
      locale: String(rec.ctx.locale),
      shardId: rec.shardId,
      ...(rec.commandName !== undefined ? { commandName: rec.commandName } : {}),
      ...(rec.customId !== undefined ? { customId: rec.customId } : {}),
      ...(rec.sourceMessageId !== undefined ? { sourceMessageId: rec.sourceMessageId } : {}),
      ...(rec.sourceInteractionId !== undefined ? { sourceInteractionId: rec.sourceInteractionId } : {}),
      createdAt: rec.createdAt,
      ackDeadlineAt: rec.ackDeadlineAt,
      tokenExpiresAt: rec.tokenExpiresAt,
      state: rec.state,
      ack: rec.ack ? { ...rec.ack } : null,
      original: original && !original.deleted ? structuredClone(original.message) : null,
      originalDeleted: rec.originalDeleted || (original?.deleted ?? false),
      followUps,
      modal: rec.modal ? structuredClone(rec.modal) : null,
      choices: rec.choices ? structuredClone(rec.choices) : null,
      errors: rec.errors.map((e) => ({ ...e })),
      version: rec.version,
    };
  }

  // -------------------------------------------------------------------------------------------
  // POST /interactions/{id}/{token}/callback

  callback(id: string, token: string, body: unknown, withResponse: boolean, files: UploadedFile[]): RestResult {
    const rec = this.byId.get(id);
    if (!rec || rec.token !== token) return unknownInteraction();
    if (rec.ack) return alreadyAcknowledged(rec.id);
    if (Date.now() > rec.ackDeadlineAt) {
      this.expire(rec);
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
    const data = body.data;
    let stored: StoredMessage | undefined;
    switch (type) {
      case InteractionResponseType.ChannelMessageWithSource: {
        const check = validateMessagePayload(data, { path: ['data'], requireContent: true });
        if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
        if (check.empty) return emptyMessage(rec.id);
        const d = data as Record<string, unknown>;
        stored = this.createResponseMessage(rec, d, numberOr(d.flags, 0) & CREATE_FLAGS, files);
        rec.originalId = stored.message.id;
        break;
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
        stored = this.createResponseMessage(rec, { content: '' }, ephemeral | MessageFlag.Loading, []);
        rec.originalId = stored.message.id;
        break;
      }
      case InteractionResponseType.DeferredMessageUpdate:
        rec.originalId = rec.sourceMessageId ?? null;
        break;
      case InteractionResponseType.UpdateMessage: {
        const source = rec.sourceMessageId ? this.deps.messages.live(rec.sourceMessageId) : undefined;
        if (!source) return unknownMessage(rec.id);
        const check = validateMessagePayload(data ?? {}, { path: ['data'], requireContent: false, existingFlags: numberOr(source.message.flags, 0) });
        if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
        stored = this.deps.messages.edit(source, isObject(data) ? data : {}, files);
        this.deps.events.emit('message', { action: 'update', message: structuredClone(stored.message), interactionId: stored.interactionId });
        rec.originalId = source.message.id;
        break;
      }
      case InteractionResponseType.ApplicationCommandAutocompleteResult: {
        const errors = validateAutocompleteData(data);
        if (!errors.ok) return invalidFormBody(errors, rec.id);
        rec.choices = (data as { choices: APIApplicationCommandOptionChoice[] }).choices;
        break;
      }
      case InteractionResponseType.Modal: {
        const errors = validateModalData(data);
        if (!errors.ok) return invalidFormBody(errors, rec.id);
        rec.modal = data as unknown as APIModalInteractionResponseCallbackData;
        break;
      }
    }
    const now = Date.now();
    rec.ack = { type, at: now, elapsedMs: now - rec.createdAt, withResponse };
    rec.state = 'acknowledged';
    if (rec.timer) clearTimeout(rec.timer);
    this.changed(rec);
    if (!withResponse) return noContent();
    const message = stored?.message;
    const createsMessage = type === InteractionResponseType.ChannelMessageWithSource || type === InteractionResponseType.UpdateMessage;
    return ok({
      interaction: {
        id: rec.id,
        type: rec.payload.type,
        ...(message
          ? {
              response_message_id: message.id,
              response_message_loading: (numberOr(message.flags, 0) & MessageFlag.Loading) !== 0,
              response_message_ephemeral: (numberOr(message.flags, 0) & MessageFlag.Ephemeral) !== 0,
            }
          : {}),
      },
      resource: { type, ...(createsMessage && message ? { message } : {}) },
    });
  }

  // -------------------------------------------------------------------------------------------
  // /webhooks/{application}/{token}...

  /** POST /webhooks/{app}/{token}: a follow-up (or, after a defer, the deferred reply itself). */
  followUp(appId: string, token: string, body: unknown, wait: boolean, files: UploadedFile[]): RestResult {
    const found = this.webhook(appId, token);
    if ('status' in found) return found;
    const rec = found;
    const check = validateMessagePayload(body, { requireContent: true });
    if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
    if (check.empty) return emptyMessage(rec.id);
    const data = body as Record<string, unknown>;
    const original = rec.originalId ? this.deps.messages.get(rec.originalId) : undefined;
    let stored: StoredMessage;
    if (
      rec.ack?.type === InteractionResponseType.DeferredChannelMessageWithSource &&
      original &&
      !original.deleted &&
      (numberOr(original.message.flags, 0) & MessageFlag.Loading) !== 0
    ) {
      // Discord turns the first follow-up after a defer into the deferred reply; its ephemeral
      // state was fixed by the defer.
      stored = this.deps.messages.edit(original, data, files);
      this.deps.events.emit('message', { action: 'update', message: structuredClone(stored.message), interactionId: rec.id });
    } else {
      stored = this.createResponseMessage(rec, data, numberOr(data.flags, 0) & CREATE_FLAGS, files, true);
      rec.followUpIds.push(stored.message.id);
    }
    this.changed(rec);
    return wait ? ok(stored.message) : noContent();
  }

  /** GET, PATCH, DELETE /webhooks/{app}/{token}/messages/{id | @original}. */
  webhookMessage(method: 'GET' | 'PATCH' | 'DELETE', appId: string, token: string, messageId: string, body: unknown, files: UploadedFile[]): RestResult {
    const found = this.webhook(appId, token);
    if ('status' in found) return found;
    const rec = found;
    const id = messageId === '@original' ? rec.originalId : messageId;
    const belongs = id !== null && (id === rec.originalId || rec.followUpIds.includes(id));
    const stored = belongs && id ? this.deps.messages.live(id) : undefined;
    if (!stored) return unknownMessage(rec.id);
    if (method === 'GET') return ok(stored.message);
    if (method === 'DELETE') {
      this.deps.messages.delete(stored);
      if (id === rec.originalId) rec.originalDeleted = true;
      this.deps.events.emit('message', { action: 'delete', message: structuredClone(stored.message), interactionId: rec.id });
      this.changed(rec);
      return noContent();
    }
    const check = validateMessagePayload(body ?? {}, { requireContent: false, existingFlags: numberOr(stored.message.flags, 0) });
    if (!check.errors.ok) return invalidFormBody(check.errors, rec.id);
    const patch = isObject(body) ? body : {};
    if (wouldBeEmpty(stored.message, patch, files)) return emptyMessage(rec.id);
    const m = this.deps.messages.edit(stored, patch, files).message;
    this.deps.events.emit('message', { action: 'update', message: structuredClone(m), interactionId: rec.id });
    this.changed(rec);
    return ok(m);
  }

  private webhook(appId: string, token: string): InteractionRecord | RestResult {
    const rec = this.byToken.get(token);
    if (!rec || appId !== this.deps.applicationId) return unknownWebhook();
    if (Date.now() > rec.tokenExpiresAt) return invalidWebhookToken(rec.id);
    // The webhook exists only once the interaction has been acknowledged with a message response.
    if (!rec.ack || rec.ack.type === InteractionResponseType.ApplicationCommandAutocompleteResult) return unknownWebhook(rec.id);
    return rec;
  }

  private createResponseMessage(rec: InteractionRecord, data: Record<string, unknown>, flags: number, files: UploadedFile[], followUp = false): StoredMessage {
    const user = rec.ctx.user;
    const owners = { '0': rec.ctx.guild.id };
    let metadata: Record<string, unknown>;
    if (rec.kind === 'component') {
      metadata = { id: rec.id, type: InteractionType.MessageComponent, user, authorizing_integration_owners: owners, interacted_message_id: rec.sourceMessageId };
    } else if (rec.kind === 'modal_submit') {
      metadata = { id: rec.id, type: InteractionType.ModalSubmit, user, authorizing_integration_owners: owners, triggering_interaction_metadata: { id: rec.sourceInteractionId, type: InteractionType.ApplicationCommand, user, authorizing_integration_owners: owners } };
    } else {
      metadata = { id: rec.id, type: InteractionType.ApplicationCommand, user, authorizing_integration_owners: owners };
    }
    if (followUp && rec.originalId) metadata.original_response_message_id = rec.originalId;
    const stored = this.deps.messages.create({
      channelId: rec.ctx.channel.id,
      guildId: rec.ctx.guild.id,
      author: this.deps.botUser,
      applicationId: this.deps.applicationId,
      // 20 = CHAT_INPUT_COMMAND reply; component and modal replies are plain messages.
      type: rec.kind === 'command' ? 20 : 0,
      flags,
      data,
      files,
      interactionId: rec.id,
      interactionMetadata: metadata as unknown as APIMessage['interaction_metadata'],
    });
    this.deps.events.emit('message', { action: 'create', message: structuredClone(stored.message), interactionId: rec.id });
    return stored;
  }

  private expire(rec: InteractionRecord): void {
    if (rec.state !== 'pending') return;
    rec.state = 'expired';
    if (rec.timer) clearTimeout(rec.timer);
    this.deps.violation({
      kind: 'ack_timeout',
      status: 0,
      code: 10062,
      message: `Interaction ${rec.id} was not acknowledged within ${this.deps.ackDeadlineMs} ms ("The application did not respond")`,
      interactionId: rec.id,
    });
    this.changed(rec);
  }

  private changed(rec: InteractionRecord): void {
    rec.version++;
    this.deps.events.emit('interaction', this.snapshot(rec));
  }
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

const nonEmpty = (v: unknown): boolean => (typeof v === 'string' ? v.length > 0 : Array.isArray(v) && v.length > 0);

/** Discord refuses an edit that leaves a message with nothing to show (50006). */
function wouldBeEmpty(message: APIMessage, patch: Record<string, unknown>, files: UploadedFile[]): boolean {
  const pick = (key: 'content' | 'embeds' | 'components' | 'attachments') => (key in patch ? patch[key] : message[key]);
  return !nonEmpty(pick('content')) && !nonEmpty(pick('embeds')) && !nonEmpty(pick('components')) && !nonEmpty(pick('attachments')) && files.length === 0;
}
