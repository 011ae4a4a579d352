/**
 * The discord.js client a slash-command bot needs: the Guilds intent only, and caches limited to
 * what it uses (guilds and their channels, for names in autocomplete), so memory does not grow
 * with members, messages or presences.
 */
import {
  Client,
  GatewayIntentBits,
  LimitedCollection,
  Options,
  type CacheFactory,
  type CacheWithLimitsOptions,
  type ClientOptions,
  type RESTOptions,
} from 'discord.js';
import { identifyThrottlerBuilder, type SharedIdentifyLease } from './identify-throttler.js';
import { apiShapedJson } from './json-transformer.js';
import { tracer } from '../tracing/tracer.js';

interface DiscordClientOptions {
  /** REST base (e.g. a local emulator's `http://127.0.0.1:PORT/api`); Discord's by default. */
  apiUrl?: string | undefined;
  /** Extra REST options, e.g. `makeRequest` to capture calls in tests. */
  rest?: ClientOptions['rest'];
  /** SHARD_COUNT and SHARD_IDS: the shards this process runs; Discord's recommendation when unset. */
  sharding?: ShardingOptions | undefined;
  /** The store other processes of the bot share, for identify turns across processes. */
  identifyLease?: SharedIdentifyLease;
}

interface ShardingOptions {
  count?: number | undefined;
  ids?: readonly number[] | undefined;
}

/** discord.js's typings omit some managers (Unlisted), which cacheWithLimits reads by class name like any other. */
type Unlisted = 'GuildApplicationCommandManager' | 'GuildSoundboardSoundManager' | 'PartialGroupDMMessageManager' | 'PollAnswerVoterManager' | 'SubscriptionManager';
type CacheLimits = CacheWithLimitsOptions & Partial<Record<Unlisted, number>>;

/**
 * Caches the bot never reads are limited to 0; the bot's own member and user are kept. Every
 * CachedManager of discord.js is named (a class missing here gets a full Collection: the guild's
 * GuildApplicationCommandManager and GuildSoundboardSoundManager, which match neither by their
 * own name nor by a base class's, and would hold two per guild). Kept in full, because the
 * bot reads them and discord.js does not support limiting them: guilds, channels (names, types),
 * roles and permission overwrites (the audit channel's permission check).
 */
const CACHE_LIMITS: CacheLimits = {
  ApplicationCommandManager: 0,
  ApplicationEmojiManager: 0,
  AutoModerationRuleManager: 0,
  BaseGuildEmojiManager: 0,
  DMMessageManager: 0,
  EntitlementManager: 0,
  GuildApplicationCommandManager: 0,
  GuildBanManager: 0,
  GuildEmojiManager: 0,
  GuildForumThreadManager: 0,
  GuildInviteManager: 0,
  GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user?.id },
  GuildMessageManager: 0,
  GuildScheduledEventManager: 0,
  GuildSoundboardSoundManager: 0,
  GuildStickerManager: 0,
  GuildTextThreadManager: 0,
  MessageManager: 0,
  PartialGroupDMMessageManager: 0,
  PollAnswerVoterManager: 0,
  PresenceManager: 0,
  ReactionManager: 0,
  ReactionUserManager: 0,
  StageInstanceManager: 0,
  SubscriptionManager: 0,
  ThreadManager: 0,
  ThreadMemberManager: 0,
  UserManager: { maxSize: 0, keepOverLimit: (user) => user.id === user.client.user?.id },
  VoiceStateManager: 0,
};

/**
 * discord.js gives every manager instance its own collection, even one limited to 0 that can
 * never hold anything: about a dozen per guild and two per text channel, each a Map with its own
 * hash table — some 2.6 KB of empty tables per guild (bench scenario 5). A LimitedCollection of
 * size 0 with nothing kept over the limit ignores every `set`, so one shared instance behaves
 * exactly like many, and those managers all get it.
 */
function makeCache(limits: CacheLimits = CACHE_LIMITS): CacheFactory {
  const limited = Options.cacheWithLimits(limits);
  const alwaysEmpty = new LimitedCollection<unknown, unknown>({ maxSize: 0 });
  const settings = limits as Record<string, unknown>;
  return ((managerType, holds, manager) => {
    const setting = settings[manager.name] ?? settings[managerType.name];
    return setting === 0 ? alwaysEmpty : limited(managerType, holds, manager);
  }) as CacheFactory;
}

/**
 * Which shards the client runs. Under a discord.js ShardingManager the process is told through
 * SHARDS and SHARD_COUNT, which the client reads itself: leave those alone. Otherwise SHARD_IDS of
 * SHARD_COUNT (a host's fixed range), every shard of SHARD_COUNT, or 'auto': Discord requires
 * sharding from 2,500 guilds on, and 'auto' takes the recommended count from GET /gateway/bot, so
 * one process grows with the bot (the emulator enforces the rule).
 */
export function shardOptions(sharding: ShardingOptions = {}, env: NodeJS.ProcessEnv = process.env): Pick<ClientOptions, 'shards' | 'shardCount'> {
  if (env.SHARDING_MANAGER !== undefined && env.SHARDS !== undefined) return {};
  const { count, ids } = sharding;
  if (count === undefined) return { shards: 'auto' };
  return { shards: ids ? [...ids] : Array.from({ length: count }, (_, i) => i), shardCount: count };
}

/**
 * discord.js's REST requests go through Node's own fetch. Its default, the `request` of the undici 6
 * it bundles, dispatches through the process-wide undici dispatcher, and the bot's own undici 7
 * (the feed API client) installs that one first when it loads; undici 7 cannot read the multipart
 * bodies discord.js builds for file uploads (TypeError "action is not a function" on every
 * attachment, e.g. /feed export's files). Node's fetch encodes the body itself before dispatching.
 */
export const restRequest: RESTOptions['makeRequest'] = (url, init) =>
  // Node's Response has every member discord.js reads; only the declared types differ.
  fetch(url, init as RequestInit) as unknown as ReturnType<RESTOptions['makeRequest']>;

/** What an initial-response callback's `type` does (Discord's InteractionResponseType). */
const CALLBACK_CALLS: Record<number, string> = { 1: 'pong', 4: 'reply', 5: 'defer', 6: 'defer_update', 7: 'update', 8: 'autocomplete', 9: 'modal' };

/**
 * A Discord REST path as a template: ids and interaction tokens become placeholders, so a span's
 * name groups calls and never holds a token (whoever has one can answer as the bot).
 */
export function discordRouteTemplate(url: string): string {
  // discord.js encodes `@original` in the path.
  const path = new URL(url).pathname.replace(/^\/api(?:\/v\d+)?/, '').replaceAll('%40', '@');
  return path
    .replace(/^\/interactions\/\d+\/[^/]+/, '/interactions/{interaction.id}/{interaction.token}')
    .replace(/^\/webhooks\/\d+\/[^/]+/, '/webhooks/{application.id}/{interaction.token}')
    .replace(/\/\d{15,25}(?=\/|$)/g, '/{id}');
}

/** Which answer a call is: callback type, edit or follow-up of an interaction, or any other REST call. */
function discordCall(method: string, template: string, body: unknown): string {
  if (template.endsWith('/callback')) {
    try {
      const type = typeof body === 'string' ? (JSON.parse(body) as { type?: unknown }).type : undefined;
      return typeof type === 'number' ? (CALLBACK_CALLS[type] ?? 'callback') : 'callback';
    } catch {
      return 'callback';
    }
  }
  if (template.startsWith('/webhooks/{application.id}/{interaction.token}')) {
    if (template.endsWith('/messages/@original')) return method === 'PATCH' ? 'edit' : method === 'DELETE' ? 'delete_original' : 'original';
    return method === 'POST' ? 'followup' : 'followup_message';
  }
  return 'rest';
}

/**
 * `makeRequest` with a client span per call when tracing is on (the function itself otherwise):
 * the callback, deferral and edit of an interaction are children of its span, across the deferral.
 */
function tracedRequest(makeRequest: RESTOptions['makeRequest']): RESTOptions['makeRequest'] {
  if (!tracer().enabled) return makeRequest;
  return (url, init) => {
    const method = init.method ?? 'GET';
    const template = discordRouteTemplate(url);
    const attributes = { 'http.request.method': method, 'url.template': template, 'feedbot.discord.call': discordCall(method, template, init.body) };
    return tracer().inSpan(`discord ${method} ${template}`, { kind: 'client', attributes }, async (span) => {
      const res = await makeRequest(url, init);
      span.set({ 'http.response.status_code': res.status });
      if (res.status >= 400) span.failed(`HTTP ${res.status}`);
      return res;
    });
  };
}

/** How often cached threads are dropped (seconds): what a guild's active threads can hold meanwhile. */
export const THREAD_SWEEP_INTERVAL_S = 300;

export function createDiscordClient(opts: DiscordClientOptions = {}): Client {
  return new Client({
    intents: [GatewayIntentBits.Guilds],
    ...shardOptions(opts.sharding),
    rest: { ...(opts.apiUrl ? { api: opts.apiUrl } : {}), ...opts.rest, makeRequest: tracedRequest(opts.rest?.makeRequest ?? restRequest) },
    ws: { buildIdentifyThrottler: identifyThrottlerBuilder(opts.identifyLease) },
    makeCache: makeCache(),
    jsonTransformer: apiShapedJson,
    sweepers: {
      ...Options.DefaultSweeperSettings,
      // The Guilds intent sends every active thread (GUILD_CREATE, THREAD_CREATE, THREAD_LIST_SYNC)
      // and discord.js keeps each in client.channels, whatever the thread managers' limit; feedbot
      // never reads a thread's channel object (interactions carry theirs), so all are dropped.
      threads: { interval: THREAD_SWEEP_INTERVAL_S, filter: () => () => true },
    },
  });
}
