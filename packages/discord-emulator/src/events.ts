/** The emulator's event bus: the control API's event stream and the `waitFor…` helpers listen here. */
import { EventEmitter } from 'node:events';
import type { APIApplicationCommand, APIMessage } from 'discord-api-types/v10';
import type { DeliveryRecord } from './http-delivery/delivery-log.js';
import type { InteractionSnapshot, RecordedCall, Violation } from './types.js';

export interface GatewayEvent {
  type: 'connect' | 'identify' | 'ready' | 'guilds_sent' | 'resume' | 'heartbeat' | 'close' | 'dispatch' | 'invalid_session';
  at: number;
  shard: [number, number] | null;
  sessionId?: string;
  /**
   * Dispatch name for `dispatch`; for `invalid_session` (op 9 sent) why: `identify_rate_limited`,
   * `session_start_limit`, `not_resumable` or `invalidated`; `dropped` for a `close` the emulator caused.
   */
  detail?: string;
  code?: number;
}

export interface MessageEvent {
  action: 'create' | 'update' | 'delete';
  message: APIMessage;
  interactionId: string | null;
}

/** A channel created, changed (overwrites, parent) or deleted, with its channel object after the change. */
export interface ChannelEvent {
  action: 'create' | 'update' | 'delete';
  guildId: string;
  channel: Record<string, unknown>;
}

/** A role's permissions or the bot's own roles changed in a guild. */
export interface GuildEvent {
  action: 'role_update' | 'bot_member_update';
  guildId: string;
  /** The role object, or the bot's member object. */
  data: Record<string, unknown>;
}

export interface EmulatorEventMap {
  call: [RecordedCall];
  violation: [Violation];
  interaction: [InteractionSnapshot];
  message: [MessageEvent];
  commands: [{ guildId: string | null; commands: APIApplicationCommand[] }];
  gateway: [GatewayEvent];
  /** A request sent to the Interactions Endpoint, answered or not. */
  delivery: [DeliveryRecord];
  channel: [ChannelEvent];
  guild: [GuildEvent];
}

export type EmulatorEvents = EventEmitter<EmulatorEventMap>;

export function createEventBus(): EmulatorEvents {
  const bus = new EventEmitter<EmulatorEventMap>();
  // Many waiters (tests, SSE clients) may listen at once; that is expected, not a leak.
  bus.setMaxListeners(0);
  return bus;
}

/** Announces a created, updated or deleted message (a copy: listeners may keep it). */
export function emitMessage(events: EmulatorEvents, action: MessageEvent['action'], message: APIMessage, interactionId: string | null): void {
  events.emit('message', { action, message: structuredClone(message), interactionId });
}
