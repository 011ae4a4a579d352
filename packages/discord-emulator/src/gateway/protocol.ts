/**
 * The gateway's vocabulary: close codes, opcode payload schemas, sessions and connections, and
 * the READY payload.
 */
import type zlib from 'node:zlib';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { APIUser } from 'discord-api-types/v10';
import type { EmulatorEvents } from '../events.js';
import type { NormalizedGuild } from '../guilds.js';
import type { Logger } from '../log.js';
import type { Violation } from '../types.js';
import type { IdentifyLimiter } from './identify-limit.js';

/** Gateway close codes (discord-api-docs "Gateway Close Event Codes"). */
export const CloseCode = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidSeq: 4007,
  SessionTimedOut: 4009,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidAPIVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

/** No connected bot owns the guild's shard: the interaction cannot be delivered. */
export class NoGatewaySessionError extends Error {
  override name = 'NoGatewaySessionError';
}

export const PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15);
/** Dispatches kept per session for RESUME. */
export const REPLAY_BUFFER = 200;
/** GUILD_CREATEs sent between two yields to the event loop. */
export const GUILD_BATCH = 250;
/** Bytes queued on a socket above which GUILD_CREATEs wait for the client to read: a slow client must not make the emulator buffer its whole guild list. */
export const SEND_HIGH_WATER = 1 << 20;

export const IdentifySchema = z.object({
  token: z.string(),
  properties: z.record(z.string(), z.unknown()),
  intents: z.unknown(),
  shard: z.unknown().optional(),
  compress: z.boolean().optional(),
  large_threshold: z.number().optional(),
  presence: z.unknown().optional(),
});

export const ResumeSchema = z.object({ token: z.string(), session_id: z.string(), seq: z.number().int().nullable() });

export interface GatewayDeps {
  botToken: string;
  applicationId: string;
  applicationFlags: number;
  botUser: APIUser;
  guildsOfShard: (shardId: number, shardCount: number) => NormalizedGuild[];
  heartbeatIntervalMs: number;
  maxGuildsPerShard: number;
  limiter: IdentifyLimiter;
  violation: (v: Omit<Violation, 'at'>) => void;
  allowedPrivilegedIntents: number;
  resumeUrl: () => string;
  events: EmulatorEvents;
  logger: Logger;
}

export interface Session {
  id: string;
  shard: [number, number];
  intents: number;
  seq: number;
  conn: Connection | null;
  buffer: { s: number; data: string }[];
  identifiedAt: number;
  readyAt: number | null;
  guildsSentAt: number | null;
  /** The shard's guilds, each sent as a GUILD_CREATE after READY. */
  guilds: NormalizedGuild[];
  /**
   * The sequence number of each guild's GUILD_CREATE, in order, for those sent so far: a RESUME
   * sends again the ones after the client's `seq` (GUILD_CREATEs are not kept for replay).
   */
  guildSeqs: number[];
  sendingGuilds: boolean;
  heartbeats: number;
  lastHeartbeatAt: number | null;
}

export interface Connection {
  ws: WebSocket;
  session: Session | null;
  deflate: zlib.Deflate | null;
  chain: Promise<void>;
  /** Cut by the emulator (`dropConnection`): whatever code the client answers, its session stays resumable. */
  dropped: boolean;
}

export interface ShardStatus {
  sessionId: string;
  shard: [number, number];
  connected: boolean;
  seq: number;
  guilds: number;
  heartbeats: number;
  lastHeartbeatAt: number | null;
  identifiedAt: number;
  readyAt: number | null;
  guildsSentAt: number | null;
}

export function shardStatus(s: Session): ShardStatus {
  return {
    sessionId: s.id,
    shard: s.shard,
    connected: s.conn !== null,
    seq: s.seq,
    guilds: s.guilds.length,
    heartbeats: s.heartbeats,
    lastHeartbeatAt: s.lastHeartbeatAt,
    identifiedAt: s.identifiedAt,
    readyAt: s.readyAt,
    guildsSentAt: s.guildsSentAt,
  };
}

/** IDENTIFY's `shard` as `[id, count]`, or undefined when it is not a valid pair. */
export function parseShard(value: unknown): [number, number] | undefined {
  const shard = value ?? [0, 1];
  if (!Array.isArray(shard) || shard.length !== 2 || !shard.every((n) => typeof n === 'number' && Number.isInteger(n))) return undefined;
  const [id, count] = shard as [number, number];
  return count >= 1 && id >= 0 && id < count ? [id, count] : undefined;
}

export function readyPayload(deps: GatewayDeps, session: Session, guilds: NormalizedGuild[]): Record<string, unknown> {
  return {
    v: 10,
    user: deps.botUser,
    guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
    session_id: session.id,
    session_type: 'normal',
    resume_gateway_url: deps.resumeUrl(),
    shard: session.shard,
    application: { id: deps.applicationId, flags: deps.applicationFlags },
    private_channels: [],
    presences: [],
    relationships: [],
    guild_join_requests: [],
    geo_ordered_rtc_regions: ['emulator'],
    user_settings: {},
    auth: {},
    _trace: ['["discord-emulator",{"micros":0}]'],
  };
}
