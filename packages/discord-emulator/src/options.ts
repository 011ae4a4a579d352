/** What an emulator is started with, and what a test asks it to send. */
import { z } from 'zod';
import type { APIInteraction } from 'discord-api-types/v10';
import type { ActorOverrides } from './handle.js';
import type { PrivateKeyInput } from './http-delivery/signer.js';
import type { EndpointCa } from './http-delivery/transport.js';
import type { Logger } from './log.js';
import type { ModalValues } from './payloads/modal.js';
import type { CommandInput } from './payloads/options.js';
import { isExactOrigin } from './request-guard.js';
import type { EmulatedGuild } from './types.js';

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback only; default 127.0.0.1. */
  host?: string;
  applicationId: string;
  /** The token the bot must present (`Authorization: Bot <token>`, IDENTIFY). Never logged. */
  botToken: string;
  botUsername?: string;
  applicationName?: string;
  guilds: EmulatedGuild[];
  /** Shard count `GET /gateway/bot` recommends; default one per 1,000 guilds, at least 1. */
  shards?: number;
  /**
   * `session_start_limit.max_concurrency`: shards identify in buckets `shard_id % maxConcurrency`.
   * Default 16, so up to 16 shards of a test client identify together.
   */
  maxConcurrency?: number;
  /** One IDENTIFY per bucket per this many ms, else op 9; default 5,000 as on Discord; 0 turns the check off. */
  identifyWindowMs?: number;
  /** IDENTIFYs allowed per `sessionStartPeriodMs` (`session_start_limit.total`), else op 9; default 1,000 as on Discord. */
  sessionStartLimit?: number;
  /** Default 24 hours; the period starts with its first IDENTIFY. */
  sessionStartPeriodMs?: number;
  /** IDENTIFY of a shard that would hold more guilds is closed with 4011; default 2,500 as on Discord; Infinity turns the check off. */
  maxGuildsPerShard?: number;
  /** Privileged intents enabled "in the developer portal"; others are refused with 4014. Default none. */
  allowedPrivilegedIntents?: number;
  heartbeatIntervalMs?: number;
  /** Time the bot has to acknowledge an interaction; default 3,000 ms as on Discord. */
  ackDeadlineMs?: number;
  /** Lifetime of an interaction token; default 15 minutes as on Discord. */
  tokenLifetimeMs?: number;
  /** Oldest calls are dropped past this many; default 50,000. */
  maxRecordedCalls?: number;
  /** Default user who interacts when a request names none. */
  defaultUserId?: string;
  /**
   * The one web page (an exact origin, `http://127.0.0.1:8080`) that may call the control API
   * from a browser. Default none: no CORS headers, and writes carrying any Origin are refused.
   */
  corsOrigin?: string;
  /**
   * Deliver interactions over HTTP to this Interactions Endpoint URL instead of the gateway. It is
   * checked once the emulator listens, as the Developer Portal checks it (PINGs); `listen()` /
   * `startEmulator()` reject with InteractionsEndpointError if it fails. Or set it later:
   * `setInteractionsEndpoint(url)`.
   */
  interactionsEndpointUrl?: string;
  /**
   * The application's Ed25519 private key (64 hex characters of seed, or PKCS#8 PEM), for a
   * public key that stays the same across runs; default a new key pair per emulator.
   */
  interactionsPrivateKey?: PrivateKeyInput;
  /** Certificates (PEM) to trust for an https Interactions Endpoint, e.g. a test's self-signed one. */
  endpointCa?: EndpointCa;
  logger?: Logger;
}

const Snowflake = z.string().regex(/^\d{15,21}$/);

export const OptionsSchema = z.object({
  port: z.number().int().min(0).max(65_535).default(0),
  host: z.string().default('127.0.0.1'),
  applicationId: Snowflake,
  botToken: z.string().min(1),
  botUsername: z.string().min(2).max(32).default('feedbot'),
  applicationName: z.string().min(1).default('feedbot'),
  guilds: z.array(z.unknown()),
  shards: z.number().int().min(1).optional(),
  maxConcurrency: z.number().int().min(1).default(16),
  identifyWindowMs: z.number().int().min(0).default(5000),
  sessionStartLimit: z.number().int().min(1).default(1000),
  sessionStartPeriodMs: z.number().int().min(1).default(86_400_000),
  maxGuildsPerShard: z
    .custom<number>((v) => v === Number.POSITIVE_INFINITY || (typeof v === 'number' && Number.isInteger(v) && v >= 1), 'a positive integer or Infinity')
    .default(2500),
  allowedPrivilegedIntents: z.number().int().min(0).default(0),
  heartbeatIntervalMs: z.number().int().min(10).default(41_250),
  ackDeadlineMs: z.number().int().min(1).default(3000),
  tokenLifetimeMs: z.number().int().min(1).default(15 * 60_000),
  maxRecordedCalls: z.number().int().min(1).default(50_000),
  defaultUserId: Snowflake.default('300000000000000001'),
  corsOrigin: z
    .string()
    .refine(isExactOrigin, 'corsOrigin must be one exact origin such as http://127.0.0.1:8080 (scheme, host, port; no wildcard, no path)')
    .optional(),
  interactionsEndpointUrl: z.string().min(1).optional(),
});

export type ParsedOptions = z.infer<typeof OptionsSchema>;

export const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export interface Actor extends ActorOverrides {
  guildId?: string;
  channelId?: string;
}

export type InteractionInput =
  | ({ type: 'command'; commandName: string; ignoreDefaultMemberPermissions?: boolean } & Omit<CommandInput, 'focused'> & Actor)
  | ({ type: 'autocomplete'; commandName: string; focused: string } & Omit<CommandInput, 'focused'> & Actor)
  | ({ type: 'button'; messageId: string; customId: string } & ActorOverrides)
  | ({ type: 'select'; messageId: string; customId: string; values: string[] } & ActorOverrides)
  | ({ type: 'modal_submit'; interactionId: string; values: ModalValues } & ActorOverrides)
  | ({ type: 'message_command'; commandName: string; messageId: string } & ActorOverrides)
  | { type: 'raw'; payload: APIInteraction };
