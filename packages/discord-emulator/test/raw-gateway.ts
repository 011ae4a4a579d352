/** Bare gateway connections for tests that need to control every payload a client sends. */
import { once } from 'node:events';
import type { WebSocketOptions } from 'discord.js';
import { WebSocket } from 'ws';
import type { DiscordEmulator, GatewayEvent } from '../src/index.js';

export interface Payload {
  op: number;
  t?: string;
  s?: number;
  d: unknown;
}

export interface RawGateway {
  ws: WebSocket;
  /** Every payload received; a GUILD_CREATE's `d` is only `{ id }` unless `keepGuilds`. */
  received: Payload[];
  /** How many dispatches of each name arrived. */
  counts: Map<string, number>;
  closed: Promise<number>;
  waitFor(pred: (p: Payload) => boolean, timeoutMs?: number): Promise<Payload>;
  send(payload: unknown): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition()` holds; polls, so it also sees what happened before the call. */
export async function until(condition: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** A connection that collects every payload; pushed to `track` so the test can close it. */
export async function rawGateway(e: DiscordEmulator, opts: { track: WebSocket[]; query?: string; keepGuilds?: boolean }): Promise<RawGateway> {
  const ws = new WebSocket(`${e.gatewayUrl}?${opts.query ?? 'v=10&encoding=json'}`);
  opts.track.push(ws);
  const received: Payload[] = [];
  const counts = new Map<string, number>();
  ws.on('message', (data) => {
    const payload = JSON.parse(data.toString()) as Payload;
    if (payload.t) counts.set(payload.t, (counts.get(payload.t) ?? 0) + 1);
    received.push(payload.t === 'GUILD_CREATE' && !opts.keepGuilds ? { ...payload, d: { id: (payload.d as { id: string }).id } } : payload);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await once(ws, 'open');
  const waitFor = async (pred: (p: Payload) => boolean, timeoutMs = 3000) => {
    let found: Payload | undefined;
    await until(() => (found = received.find(pred)) !== undefined, timeoutMs, 'payload');
    return found!;
  };
  return { ws, received, counts, closed, waitFor, send: (p: unknown) => ws.send(JSON.stringify(p)) };
}

export const identify = (token: string, shard: [number, number] = [0, 1], intents = 1) => ({
  op: 2,
  d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' }, shard },
});

export const resume = (token: string, sessionId: string, seq: number) => ({ op: 6, d: { token, session_id: sessionId, seq } });

export const isReady = (p: Payload) => p.t === 'READY';
export const guildIds = (g: RawGateway) => g.received.filter((p) => p.t === 'GUILD_CREATE').map((p) => (p.d as { id: string }).id);
export const lastSeq = (g: RawGateway) => Math.max(0, ...g.received.map((p) => p.s ?? 0));
export const isInvalidSession = (p: Payload) => p.op === 9;

/** The next gateway event of a type (and matching `pred`), from now on. */
export function nextGatewayEvent(e: DiscordEmulator, type: GatewayEvent['type'], pred: (event: GatewayEvent) => boolean = () => true): Promise<GatewayEvent> {
  return new Promise((resolve) => {
    const listener = (event: GatewayEvent) => {
      if (event.type !== type || !pred(event)) return;
      e.events.off('gateway', listener);
      resolve(event);
    };
    e.events.on('gateway', listener);
  });
}

type IdentifyThrottler = Awaited<ReturnType<NonNullable<WebSocketOptions['buildIdentifyThrottler']>>>;

/**
 * discord.js's identify throttling (one IDENTIFY per `shard_id % maxConcurrency` bucket per window)
 * with the emulator's short test window instead of Discord's fixed 5 s, plus a margin for the
 * time an IDENTIFY takes to arrive.
 */
export function windowThrottler(maxConcurrency: number, windowMs: number): IdentifyThrottler {
  const nextAt = new Map<number, number>();
  return {
    async waitForIdentify(shardId: number, signal: AbortSignal) {
      const bucket = shardId % maxConcurrency;
      const at = Math.max(Date.now(), nextAt.get(bucket) ?? 0);
      nextAt.set(bucket, at + windowMs + 50);
      if (at > Date.now()) await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, at - Date.now());
        signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      });
    },
  };
}
