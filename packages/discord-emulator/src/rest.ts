/**
 * The REST API under `/api/v10` (and `/api/v9`, `/api`): what a discord.js bot calls to log in,
 * register commands and answer interactions. Bot routes need `Authorization: Bot <token>`;
 * interaction callbacks and webhook routes are authenticated by the interaction token, as on
 * Discord (discord.js sends them without Authorization).
 */
import type { APIGatewaySessionStartLimit, APIUser } from 'discord-api-types/v10';
import { refusePost, refuseUnseen } from './channel-access.js';
import type { CommandStore } from './commands.js';
import {
  discordError,
  emptyMessage,
  invalidFormBody,
  missingAccess,
  noContent,
  ok,
  unknownChannel,
  unknownCommand,
  unknownGuild,
  unknownMessage,
  FormErrors,
  type RestResult,
} from './errors.js';
import { emitMessage, type EmulatorEvents } from './events.js';
import { InteractionsEndpointError } from './http-delivery/endpoint-check.js';
import { channelPayload, guildPayload, memberPayload, makeUser, rolePayload, type NormalizedGuild } from './guilds.js';
import { interactionCallback } from './interactions/callback.js';
import type { ResponseContext } from './interactions/response-message.js';
import { followUp, webhookMessage } from './interactions/webhooks.js';
import type { MessageStore, UploadedFile } from './messages.js';
import { Router } from './http.js';
import { validateCommand, validateCommandList } from './validation/commands.js';
import { MessageFlag, isObject } from './validation/fields.js';
import { validateMessagePayload } from './validation/messages.js';
import { checkMessageComponentsAgainstSpec, checkMessageCreateAgainstSpec } from './validation/openapi/message-spec.js';

export interface RestRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  files: UploadedFile[];
}

type Handler = (req: RestRequest) => RestResult | Promise<RestResult>;

export interface RestRoute {
  auth: boolean;
  /** Takes multipart/form-data (`payload_json` + `files[n]`) besides JSON: the routes where Discord takes files. */
  multipart: boolean;
  handle: Handler;
}

const WITH_FILES = { multipart: true };

export interface RestDeps {
  applicationId: string;
  applicationName: string;
  applicationFlags: number;
  botUser: APIUser;
  /** The application's owner. */
  owner: APIUser;
  guild: (id: string) => NormalizedGuild | undefined;
  channel: (id: string) => { guild: NormalizedGuild; channel: NormalizedGuild['channels'][number] } | undefined;
  guildCount: () => number;
  /** `GET /users/@me/guilds` (guild-membership.ts). */
  botGuilds?: (query: URLSearchParams) => RestResult;
  commands: CommandStore;
  responses: ResponseContext;
  messages: MessageStore;
  events: EmulatorEvents;
  gatewayUrl: () => string;
  recommendedShards: () => number;
  /** The IDENTIFYs made so far count against it. */
  sessionStartLimit: () => APIGatewaySessionStartLimit;
  /** The application's interactions key pair: `verify_key` is its public key. */
  interactions: {
    publicKey: string;
    endpointUrl: () => string | null;
    /** Checks the endpoint as the Developer Portal does; throws InteractionsEndpointError. */
    setEndpoint: (url: string | null) => Promise<unknown>;
  };
}

export function createRestRouter(deps: RestDeps): Router<RestRoute> {
  const router = new Router<RestRoute>();
  const bot = (method: string, pattern: string, handle: Handler, opts = { multipart: false }) =>
    router.add(method, pattern, { auth: true, multipart: opts.multipart, handle });
  const open = (method: string, pattern: string, handle: Handler, opts = { multipart: false }) =>
    router.add(method, pattern, { auth: false, multipart: opts.multipart, handle });

  const application = () => ({
    id: deps.applicationId,
    name: deps.applicationName,
    icon: null,
    description: '',
    summary: '',
    type: null,
    bot: deps.botUser,
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: deps.interactions.publicKey,
    flags: deps.applicationFlags,
    team: null,
    owner: deps.owner,
    approximate_guild_count: deps.guildCount(),
    integration_types_config: { '0': {} },
    redirect_uris: [],
    interactions_endpoint_url: deps.interactions.endpointUrl(),
    tags: [],
  });

  open('GET', '/gateway', () => ok({ url: deps.gatewayUrl() }));
  bot('GET', '/gateway/bot', () => ok({ url: deps.gatewayUrl(), shards: deps.recommendedShards(), session_start_limit: deps.sessionStartLimit() }));
  bot('GET', '/users/@me', () => ok(deps.botUser));
  bot('GET', '/users/@me/guilds', ({ query }) => deps.botGuilds?.(query) ?? ok([]));
  bot('GET', '/applications/@me', () => ok(application()));
  bot('GET', '/oauth2/applications/@me', () => ok(application()));
  // Only interactions_endpoint_url changes anything; it is checked first, as the portal does.
  bot('PATCH', '/applications/@me', async ({ body }) => {
    const url = isObject(body) ? body.interactions_endpoint_url : undefined;
    if (url === undefined) return ok(application());
    if (url !== null && typeof url !== 'string') {
      const e = new FormErrors();
      e.add(['interactions_endpoint_url'], 'STRING_TYPE_CONVERT', `Could not interpret "${String(url)}" as string.`);
      return invalidFormBody(e);
    }
    try {
      await deps.interactions.setEndpoint(url === '' ? null : url);
    } catch (error) {
      if (!(error instanceof InteractionsEndpointError)) throw error;
      const { code, message, errors } = error.formBody();
      return discordError(400, code, message, 'invalid_form_body', { errors });
    }
    return ok(application());
  });

  // -- application commands, global (:guild absent) and per guild
  const scope = (params: Record<string, string>): string | null | RestResult => {
    if (params.app !== deps.applicationId) return missingAccess();
    if (params.guild === undefined) return null;
    return deps.guild(params.guild) ? params.guild : missingAccess();
  };
  const isResult = (v: unknown): v is RestResult => typeof v === 'object' && v !== null && 'status' in v;
  const commandsChanged = (guildId: string | null) =>
    deps.events.emit('commands', { guildId, commands: structuredClone(deps.commands.list(guildId)) });

  for (const prefix of ['/applications/:app/commands', '/applications/:app/guilds/:guild/commands']) {
    bot('GET', prefix, ({ params }) => {
      const s = scope(params);
      return isResult(s) ? s : ok(deps.commands.list(s));
    });
    bot('PUT', prefix, ({ params, body }) => {
      const s = scope(params);
      if (isResult(s)) return s;
      const errors = validateCommandList(body);
      if (!errors.ok) return invalidFormBody(errors);
      const list = deps.commands.overwrite(s, body as Record<string, unknown>[]);
      commandsChanged(s);
      return ok(list);
    });
    bot('POST', prefix, ({ params, body }) => {
      const s = scope(params);
      if (isResult(s)) return s;
      const errors = new FormErrors();
      validateCommand(errors, body, []);
      if (!errors.ok) return invalidFormBody(errors);
      const { command, created } = deps.commands.upsert(s, body as Record<string, unknown>);
      commandsChanged(s);
      return ok(command, created ? 201 : 200);
    });
    bot('GET', `${prefix}/:command`, ({ params }) => {
      const s = scope(params);
      if (isResult(s)) return s;
      const command = deps.commands.get(s, params.command!);
      return command ? ok(command) : unknownCommand();
    });
    bot('PATCH', `${prefix}/:command`, ({ params, body }) => {
      const s = scope(params);
      if (isResult(s)) return s;
      const current = deps.commands.get(s, params.command!);
      if (!current) return unknownCommand();
      const merged = { ...current, ...(isObject(body) ? body : {}) };
      const errors = new FormErrors();
      validateCommand(errors, merged, []);
      if (!errors.ok) return invalidFormBody(errors);
      const command = deps.commands.edit(s, params.command!, isObject(body) ? body : {});
      commandsChanged(s);
      return ok(command);
    });
    bot('DELETE', `${prefix}/:command`, ({ params }) => {
      const s = scope(params);
      if (isResult(s)) return s;
      if (!deps.commands.remove(s, params.command!)) return unknownCommand();
      commandsChanged(s);
      return noContent();
    });
  }

  // -- interactions
  open(
    'POST',
    '/interactions/:id/:token/callback',
    ({ params, query, body, files }) => interactionCallback(deps.responses, params.id!, params.token!, body, query.get('with_response') === 'true', files),
    WITH_FILES,
  );
  open(
    'POST',
    '/webhooks/:app/:token',
    ({ params, query, body, files }) => followUp(deps.responses, params.app!, params.token!, body, query.get('wait') === 'true', files),
    WITH_FILES,
  );
  for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
    open(
      method,
      '/webhooks/:app/:token/messages/:message',
      ({ params, body, files }) => webhookMessage(deps.responses, method, params.app!, params.token!, params.message!, body, files),
      { multipart: method === 'PATCH' },
    );
  }

  // -- guilds and channels the bot may look up
  bot('GET', '/guilds/:guild', ({ params }) => {
    const guild = deps.guild(params.guild!);
    if (!guild) return unknownGuild();
    return ok(guildPayload(guild));
  });
  bot('GET', '/guilds/:guild/channels', ({ params }) => {
    const guild = deps.guild(params.guild!);
    return guild ? ok(guild.channels.map((c) => channelPayload(guild, c))) : unknownGuild();
  });
  bot('GET', '/guilds/:guild/roles', ({ params }) => {
    const guild = deps.guild(params.guild!);
    return guild ? ok(guild.roles.map(rolePayload)) : unknownGuild();
  });
  bot('GET', '/guilds/:guild/members/:user', ({ params }) => {
    const guild = deps.guild(params.guild!);
    if (!guild) return unknownGuild();
    if (params.user === deps.botUser.id) return ok(memberPayload(guild, deps.botUser, { roles: guild.botRoles }));
    const member = guild.members.find((m) => m.userId === params.user);
    if (!member) return discordError(404, 10007, 'Unknown Member', 'not_found');
    return ok(memberPayload(guild, makeUser(member.userId, member.username ?? `user${member.userId.slice(-4)}`), member));
  });

  const findChannel = (channelId: string) => deps.channel(channelId);

  bot('GET', '/channels/:channel', ({ params }) => {
    const found = findChannel(params.channel!);
    if (!found) return unknownChannel();
    return refuseUnseen(found.guild, found.channel, deps.botUser.id) ?? ok(channelPayload(found.guild, found.channel));
  });
  // Refused before its body is read: a channel that is gone (10003), then the bot's permissions
  // there (channel-access.ts), then the emulator's rules and Discord's OpenAPI document.
  bot('POST', '/channels/:channel/messages', ({ params, body, files }) => {
    const found = findChannel(params.channel!);
    if (!found) return unknownChannel();
    const refused = refusePost(found.guild, found.channel, deps.botUser.id, body, files.length);
    if (refused) return refused;
    const check = validateMessagePayload(body, { requireContent: files.length === 0 });
    if (!check.errors.ok) return invalidFormBody(check.errors);
    if (check.empty) return emptyMessage();
    const spec = checkMessageCreateAgainstSpec(body);
    if (!spec.ok) return invalidFormBody(spec);
    const data = body as Record<string, unknown>;
    const flags = typeof data.flags === 'number' ? data.flags & (MessageFlag.SuppressEmbeds | MessageFlag.SuppressNotifications | MessageFlag.IsComponentsV2) : 0;
    const stored = deps.messages.create({ channelId: found.channel.id, guildId: found.guild.id, author: deps.botUser, type: 0, flags, data, files });
    emitMessage(deps.events, 'create', stored.message, null);
    return ok(stored.message);
  }, WITH_FILES);
  const channelMessage = (params: Record<string, string>) => {
    const stored = deps.messages.live(params.message!);
    return stored && stored.message.channel_id === params.channel ? stored : undefined;
  };
  bot('GET', '/channels/:channel/messages/:message', ({ params }) => {
    const stored = channelMessage(params);
    return stored ? ok(stored.message) : unknownMessage();
  });
  bot('PATCH', '/channels/:channel/messages/:message', ({ params, body, files }) => {
    const stored = channelMessage(params);
    if (!stored) return unknownMessage();
    if (stored.message.author.id !== deps.botUser.id || stored.interactionId) {
      return discordError(403, 50005, 'Cannot edit a message authored by another user', 'forbidden');
    }
    const check = validateMessagePayload(body ?? {}, { requireContent: false, existingFlags: stored.message.flags ?? 0 });
    if (!check.errors.ok) return invalidFormBody(check.errors);
    const spec = checkMessageComponentsAgainstSpec(body);
    if (!spec.ok) return invalidFormBody(spec);
    const edited = deps.messages.edit(stored, isObject(body) ? body : {}, files);
    emitMessage(deps.events, 'update', edited.message, null);
    return ok(edited.message);
  }, WITH_FILES);
  bot('DELETE', '/channels/:channel/messages/:message', ({ params }) => {
    const stored = channelMessage(params);
    if (!stored) return unknownMessage();
    deps.messages.delete(stored);
    emitMessage(deps.events, 'delete', stored.message, null);
    return noContent();
  });

  return router;
}
