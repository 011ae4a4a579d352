/** Public data types of the emulator: configuration, records and snapshots. */
import type {
  APIApplicationCommandOptionChoice,
  APIInteraction,
  APIMessage,
  APIModalInteractionResponseCallbackData,
  ChannelType,
} from 'discord-api-types/v10';

/** A channel's permission overwrite, as Discord sends it (`allow`/`deny`: decimal bit sets). */
export interface PermissionOverwrite {
  /** A role id (type 0; the guild id for @everyone) or a user id (type 1). */
  id: string;
  /** 0: role, 1: member. */
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface EmulatedChannel {
  id: string;
  name: string;
  /** discord-api-types `ChannelType`; 0 = text, 4 = category, 2 = voice, 15 = forum. */
  type: ChannelType | number;
  parentId?: string;
  position?: number;
  topic?: string;
  permissionOverwrites?: PermissionOverwrite[];
}

export interface EmulatedRole {
  id: string;
  name: string;
  /** Permission bit set as a decimal string, as Discord sends it. */
  permissions: string;
  position?: number;
  color?: number;
}

export interface EmulatedMember {
  userId: string;
  username?: string;
  globalName?: string;
  nick?: string;
  /** Role ids (the @everyone role is implicit). */
  roles?: string[];
}

export interface EmulatedGuild {
  id: string;
  name: string;
  ownerId: string;
  /** The guild's preferred locale (`guild_locale` of interactions); defaults to en-US. */
  locale?: string;
  channels: EmulatedChannel[];
  /** The @everyone role has the guild's id; it is added when missing. */
  roles: EmulatedRole[];
  members?: EmulatedMember[];
  /** The bot's own roles in the guild (besides @everyone); default none. */
  botRoles?: string[];
}

/** One REST call as the emulator saw it. The Authorization header is never recorded. */
export interface RecordedCall {
  seq: number;
  at: number;
  method: string;
  /** Path after the API version, decoded (`/webhooks/1/abc/messages/@original`). */
  path: string;
  /** The same path with ids and tokens replaced by placeholders (`/webhooks/:app/:token/messages/@original`). */
  route: string;
  query: Record<string, string>;
  body: unknown;
  files: { name: string; size: number; contentType: string }[];
  status: number;
  response: unknown;
  durationMs: number;
}

export type ViolationKind =
  | 'invalid_form_body'
  | 'empty_message'
  | 'invalid_response_type'
  | 'unknown_interaction'
  | 'already_acknowledged'
  | 'ack_timeout'
  | 'unknown_webhook'
  | 'unknown_message'
  | 'invalid_webhook_token'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  /** Gateway: an IDENTIFY while the shard's max_concurrency bucket was still in its identify window. */
  | 'identify_rate_limited'
  /** Gateway: an IDENTIFY with no session start remaining. */
  | 'session_start_limit'
  /**
   * HTTP delivery: the Interactions Endpoint answered in a way Discord does not take (not 2xx,
   * unreachable, no or unreadable interaction response, a 202 with a body, ...).
   */
  | 'interactions_endpoint';

/**
 * Something Discord would have rejected (every 4xx answer, every IDENTIFY over a limit, every
 * refused answer of the Interactions Endpoint), or an interaction nobody acknowledged.
 */
export interface Violation {
  at: number;
  kind: ViolationKind;
  /** HTTP status; 0 for the gateway's (answered with op 9, not HTTP). */
  status: number;
  /** Discord JSON error code (50035, 10062, 40060, ...); 0 where Discord sends none. */
  code: number;
  message: string;
  method?: string;
  route?: string;
  path?: string;
  interactionId?: string;
  /** The `errors` tree of a 50035 answer. */
  errors?: unknown;
  body?: unknown;
}

export type InteractionKind = 'command' | 'autocomplete' | 'component' | 'modal_submit';
export type InteractionState = 'pending' | 'acknowledged' | 'expired';

export interface InteractionError {
  at: number;
  method: string;
  route: string;
  status: number;
  code: number;
  message: string;
}

/** A gateway session an interaction (INTERACTION_CREATE) was dispatched to. */
export interface DispatchTarget {
  sessionId: string;
  /** The session's `[shard_id, num_shards]`, as it identified. */
  shard: [number, number];
}

/** What the emulator tracks of an interaction besides its payload and its messages. */
export interface InteractionLifecycle {
  id: string;
  kind: InteractionKind;
  /**
   * The shard it was dispatched to (of the newest connected session among `dispatchedTo`); null
   * when it was POSTed to the Interactions Endpoint.
   */
  shardId: number | null;
  /**
   * Every gateway session it was dispatched to: as on Discord, each session identified for the
   * guild's shard gets it — several during a blue/green deploy (same `[shard_id, num_shards]`)
   * or a resharding (another `num_shards`). Empty when it went over HTTP.
   */
  dispatchedTo: DispatchTarget[];
  /**
   * Initial responses the bot sent for it, accepted or refused: calls to its
   * `POST /interactions/{id}/{token}/callback` (with its token, body read) plus interaction
   * responses in the Interactions Endpoint's answers. At most one is accepted (`ack`); any other
   * is refused (40060 once acknowledged, see `errors`). "Answered exactly once": `callbacks === 1`
   * and `state === 'acknowledged'`.
   */
  callbacks: number;
  commandName?: string;
  customId?: string;
  /** The component message this interaction came from (buttons, selects, modals shown from them). */
  sourceMessageId?: string;
  /** The interaction whose modal this one submits. */
  sourceInteractionId?: string;
  createdAt: number;
  ackDeadlineAt: number;
  tokenExpiresAt: number;
  state: InteractionState;
  ack: { type: number; at: number; elapsedMs: number; withResponse: boolean } | null;
  originalDeleted: boolean;
  modal: APIModalInteractionResponseCallbackData | null;
  choices: APIApplicationCommandOptionChoice[] | null;
  errors: InteractionError[];
  /** Bumped on every change; lets pollers detect updates cheaply. */
  version: number;
}

/** Everything known about one interaction, JSON-serialisable (the token is left out). */
export interface InteractionSnapshot extends InteractionLifecycle {
  type: number;
  guildId: string | null;
  channelId: string | null;
  userId: string;
  locale: string;
  /** The `@original` message: the reply, or the component's message after an update. */
  original: APIMessage | null;
  followUps: APIMessage[];
}

export interface EmulatorInteraction {
  snapshot: InteractionSnapshot;
  payload: APIInteraction;
}
