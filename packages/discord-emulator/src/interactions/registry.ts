/**
 * Every interaction the emulator dispatched, by id and by token, with its acknowledgement clock:
 * one acknowledgement within the deadline (3 s on Discord), then the token's lifetime (15 min).
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { EmulatorEvents } from '../events.js';
import type { MessageStore, StoredMessage } from '../messages.js';
import type { InteractionContext } from '../payloads/origin.js';
import type { DispatchTarget, InteractionError, InteractionLifecycle, InteractionSnapshot, Violation } from '../types.js';

/** How the interaction was dispatched: known before it is registered. */
export type RegisterMeta = Pick<InteractionLifecycle, 'kind' | 'shardId' | 'commandName' | 'customId' | 'sourceMessageId' | 'sourceInteractionId'> & {
  ctx: InteractionContext;
  /** The gateway sessions it went to; none over HTTP. */
  dispatchedTo?: DispatchTarget[];
};

/** The lifecycle plus what snapshots leave out or resolve: the token, the payload, message ids. */
export interface InteractionRecord extends InteractionLifecycle, Pick<RegisterMeta, 'ctx'> {
  token: string;
  payload: APIInteraction;
  originalId: string | null;
  followUpIds: string[];
  timer: NodeJS.Timeout | null;
}

export interface InteractionRegistryDeps {
  ackDeadlineMs: number;
  tokenLifetimeMs: number;
  messages: MessageStore;
  events: EmulatorEvents;
  violation: (v: Omit<Violation, 'at'>) => void;
}

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
      dispatchedTo: meta.dispatchedTo ?? [],
      callbacks: 0,
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

  withToken(token: string): InteractionRecord | undefined {
    return this.byToken.get(token);
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

  /** The bot's acknowledgement was accepted: the clock stops. */
  acknowledged(rec: InteractionRecord, type: number, withResponse: boolean): void {
    const now = Date.now();
    rec.ack = { type, at: now, elapsedMs: now - rec.createdAt, withResponse };
    rec.state = 'acknowledged';
    if (rec.timer) clearTimeout(rec.timer);
    this.changed(rec);
  }

  /** The deadline passed without an acknowledgement: Discord shows "The application did not respond". */
  expire(rec: InteractionRecord): void {
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

  /**
   * The answer to an HTTP delivery failed the interaction (the reason was recorded as a
   * violation): Discord shows "This interaction failed" at once, and the token is no good.
   */
  fail(rec: InteractionRecord): void {
    if (rec.state !== 'pending') return;
    rec.state = 'expired';
    if (rec.timer) clearTimeout(rec.timer);
    this.changed(rec);
  }

  /** Bumps the version and tells listeners (handles waiting, the control API's event stream). */
  changed(rec: InteractionRecord): void {
    rec.version++;
    this.deps.events.emit('interaction', this.snapshot(rec));
  }

  close(): void {
    for (const rec of this.byId.values()) if (rec.timer) clearTimeout(rec.timer);
  }

  snapshot(rec: InteractionRecord): InteractionSnapshot {
    const { token: _token, payload, ctx, originalId, followUpIds, timer: _timer, ...lifecycle } = rec;
    const original = originalId ? this.deps.messages.get(originalId) : undefined;
    const followUps = followUpIds
      .map((id) => this.deps.messages.get(id))
      .filter((m): m is StoredMessage => m !== undefined && !m.deleted)
      .map((m) => m.message);
    return structuredClone({
      ...lifecycle,
      type: payload.type,
      guildId: ctx.guild.id,
      channelId: ctx.channel.id,
      userId: ctx.user.id,
      locale: String(ctx.locale),
      original: original && !original.deleted ? original.message : null,
      originalDeleted: rec.originalDeleted || (original?.deleted ?? false),
      followUps,
    });
  }
}
