/**
 * What ops reads of the Discord gateway: discord.js's `client.ws` (WebSocketManager) has this
 * shape, and tests pass a plain Map.
 */
import { Status } from 'discord.js';

export interface GatewayShard {
  /** discord.js Status (0 = Ready). */
  readonly status: number;
  /** Round trip of the last heartbeat in ms; -1 before the first. */
  readonly ping: number;
}

export interface GatewaySource {
  readonly shards: ReadonlyMap<number, GatewayShard>;
}

/** `Ready`, `Connecting`… for a discord.js Status value. */
export function statusName(status: number): string {
  return (Status as unknown as Record<number, string | undefined>)[status] ?? `unknown (${status})`;
}

export const READY = Status.Ready as number;
