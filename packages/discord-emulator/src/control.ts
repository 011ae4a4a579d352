/**
 * The control API under `/_emulator` (JSON, loopback): what a test runner or the web playground
 * uses to drive the emulator. Documented in ./README.md; the routes that change guilds and upload
 * files are in control/guild-routes.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ControlError, jsonBody, parse, Permissions, Snowflake, type ControlResult } from './control/common.js';
import { guildRoute } from './control/guild-routes.js';
import type { DiscordEmulator } from './emulator.js';
import type { EmulatorEventMap } from './events.js';
import { NoGatewaySessionError } from './gateway/protocol.js';
import { WaitTimeoutError, type InteractionHandle } from './handle.js';
import { InteractionsEndpointError } from './http-delivery/endpoint-check.js';
import { BodyError, sendJson } from './http.js';
import type { InteractionInput } from './options.js';
import { InteractionInputError } from './payloads/options.js';
import type { RequestGuard } from './request-guard.js';
import type { UserMessageInput } from './user-messages.js';

const Actor = {
  userId: Snowflake.optional(),
  username: z.string().min(1).max(32).optional(),
  locale: z.string().min(2).max(10).optional(),
  permissions: Permissions.optional(),
  roles: z.array(Snowflake).optional(),
};
const Place = { guildId: Snowflake.optional(), channelId: Snowflake.optional() };
const OptionValue = z.union([z.string(), z.number(), z.boolean()]);
const CommandFields = {
  commandName: z.string().min(1).max(32),
  options: z.record(z.string(), OptionValue).optional(),
  subcommand: z.string().min(1).max(32).optional(),
  subcommandGroup: z.string().min(1).max(32).optional(),
};
const ModalValues = z.record(z.string(), z.union([z.string(), z.array(z.string()), z.boolean()]));

export const InteractionRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('command'), ...CommandFields, ...Place, ...Actor, ignoreDefaultMemberPermissions: z.boolean().optional() }),
  z.object({ type: z.literal('autocomplete'), ...CommandFields, focused: z.string().min(1), ...Place, ...Actor }),
  z.object({ type: z.literal('button'), messageId: Snowflake, customId: z.string().min(1).max(100), ...Actor }),
  z.object({ type: z.literal('select'), messageId: Snowflake, customId: z.string().min(1).max(100), values: z.array(z.string()).max(25), ...Actor }),
  z.object({ type: z.literal('modal_submit'), interactionId: Snowflake, values: ModalValues, ...Actor }),
  z.object({ type: z.literal('message_command'), messageId: Snowflake, commandName: z.string().min(1).max(32), ...Actor }),
]);

const PressSchema = z.object({ customId: z.string().min(1).max(100), ...Actor });
const SelectSchema = z.object({ customId: z.string().min(1).max(100), values: z.array(z.string()).max(25), ...Actor });
const ModalSubmitSchema = z.object({ values: ModalValues, ...Actor });
const MessageCommandSchema = z.object({ commandName: z.string().min(1).max(32), ...Actor });
const ShardId = z.number().int().min(0).optional();
const ReconnectSchema = z.object({ shardId: ShardId });
// 4000–4999: the application range, where Discord's own gateway close codes are.
const DropSchema = z.object({ shardId: ShardId, code: z.number().int().min(4000).max(4999).optional() });
const InvalidateSchema = z.object({ shardId: ShardId, resumable: z.boolean().default(false) });
const EndpointSchema = z.object({ url: z.string().min(1).max(2048).nullable() });
const PageSchema = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
const WaitSchema = z.object({
  for: z.enum(['ack', 'final']).default('final'),
  timeoutMs: z.coerce.number().int().min(1).max(60_000).default(5000),
});

const SSE_EVENTS: (keyof EmulatorEventMap)[] = ['call', 'violation', 'interaction', 'message', 'commands', 'gateway', 'delivery', 'channel', 'guild'];

/** `POST /attachments?filename=…` takes the file's own bytes and type, not JSON: it only stores a file. */
const isUpload = (req: IncomingMessage, segments: string[]) => req.method === 'POST' && segments.length === 1 && segments[0] === 'attachments';

export function createControlHandler(emulator: DiscordEmulator, guard: RequestGuard) {
  const info = () => ({
    applicationId: emulator.applicationId,
    botUser: emulator.botUser,
    apiUrl: emulator.apiUrl,
    restUrl: emulator.restUrl,
    gatewayUrl: emulator.gatewayUrl,
    controlUrl: emulator.controlUrl,
    guildCount: emulator.guilds().length,
    recommendedShards: emulator.recommendedShards(),
    ackDeadlineMs: emulator.ackDeadlineMs,
    publicKey: emulator.publicKey,
    interactionsEndpointUrl: emulator.interactionsEndpointUrl,
    shards: emulator.shards(),
  });

  const application = () => ({ id: emulator.applicationId, publicKey: emulator.publicKey, interactionsEndpointUrl: emulator.interactionsEndpointUrl });

  /** PUT /application/interactions-endpoint: the Developer Portal's field, with its checks. */
  async function setEndpoint(req: IncomingMessage) {
    const { url } = parse(EndpointSchema, await jsonBody(req));
    try {
      await emulator.setInteractionsEndpoint(url);
    } catch (error) {
      if (!(error instanceof InteractionsEndpointError)) throw error;
      throw new ControlError(400, error.message, { check: error.check, reason: error.reason, ...error.formBody() });
    }
    return { status: 200, body: application() };
  }

  const guildSummary = (g: ReturnType<DiscordEmulator['guilds']>[number]) => ({
    id: g.id,
    name: g.name,
    ownerId: g.ownerId,
    locale: g.locale,
    channels: g.channels,
    roles: g.roles,
    members: g.members,
    botRoles: g.botRoles,
  });

  const handleOf = (id: string): InteractionHandle => {
    const handle = emulator.interaction(id);
    if (!handle) throw new ControlError(404, `unknown interaction ${id}`);
    return handle;
  };

  const created = (handle: InteractionHandle) => ({ status: 201, body: handle.snapshot() });

  function streamEvents(req: IncomingMessage, res: ServerResponse, url: URL, cors: Record<string, string>): void {
    const wanted = url.searchParams.get('types')?.split(',').filter(Boolean);
    const types = SSE_EVENTS.filter((t) => !wanted || wanted.includes(t));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...cors });
    const write = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    write('hello', info());
    const listeners = types.map((type) => {
      const listener = (payload: unknown) => write(type, payload);
      emulator.events.on(type, listener as never);
      return () => emulator.events.off(type, listener as never);
    });
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    const stop = () => {
      clearInterval(ping);
      for (const off of listeners) off();
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  async function route(req: IncomingMessage, segments: string[], url: URL): Promise<ControlResult> {
    const method = (req.method ?? 'GET').toUpperCase();
    const [a, b, c, d] = segments;
    // `GET /attachments/{id}/{filename}`: the file name is part of the URL, as on Discord's CDN.
    const key = a === 'attachments' && method === 'GET' ? `${method} /attachments/:id` : `${method} /${[a, b && ':id', c, d && ':id'].filter(Boolean).join('/')}`;
    const admin = guildRoute(emulator, key, req, segments, url);
    if (admin) return admin;
    switch (key) {
      case 'GET /':
        return { status: 200, body: info() };
      case 'GET /guilds': {
        const page = parse(PageSchema, Object.fromEntries(url.searchParams));
        const all = emulator.guilds();
        return { status: 200, body: { total: all.length, offset: page.offset, guilds: all.slice(page.offset, page.offset + page.limit).map(guildSummary) } };
      }
      case 'GET /guilds/:id': {
        const guild = emulator.guild(b!);
        if (!guild) throw new ControlError(404, `unknown guild ${b}`);
        return { status: 200, body: { ...guildSummary(guild), commands: emulator.commands(guild.id) } };
      }
      case 'GET /commands': {
        const guildId = url.searchParams.get('guildId');
        if (guildId !== null) parse(Snowflake, guildId);
        return { status: 200, body: { global: emulator.commands(null), guild: guildId ? emulator.commands(guildId) : undefined, guildsWithCommands: emulator.commandGuildIds() } };
      }
      case 'GET /calls': {
        const since = Number(url.searchParams.get('since') ?? 0);
        return { status: 200, body: emulator.calls.filter((call) => call.seq > since) };
      }
      case 'GET /violations':
        return { status: 200, body: emulator.violations };
      case 'GET /deliveries':
        return { status: 200, body: emulator.deliveries };
      case 'GET /application':
        return { status: 200, body: application() };
      case 'PUT /application/:id':
        if (b === 'interactions-endpoint') return setEndpoint(req);
        break;
      case 'DELETE /records':
        emulator.clearRecords();
        return { status: 204 };
      case 'GET /shards':
        return { status: 200, body: emulator.shards() };
      case 'GET /gateway':
        return { status: 200, body: { sessionStartLimit: emulator.sessionStartLimit(), identifyBuckets: emulator.identifyBuckets(), shards: emulator.shards() } };
      case 'POST /gateway/:id': {
        if (b === 'reconnect') {
          const body = parse(ReconnectSchema, await jsonBody(req));
          return { status: 200, body: { reconnecting: emulator.requestReconnect(body.shardId) } };
        }
        if (b === 'drop') {
          const body = parse(DropSchema, await jsonBody(req));
          return { status: 200, body: { dropped: emulator.dropConnection(body.shardId, { code: body.code }) } };
        }
        if (b === 'invalidate') {
          const body = parse(InvalidateSchema, await jsonBody(req));
          return { status: 200, body: { invalidated: emulator.invalidateSession(body.shardId, { resumable: body.resumable }) } };
        }
        break;
      }
      case 'GET /interactions':
        return { status: 200, body: emulator.interactions() };
      case 'POST /interactions': {
        const input = parse(InteractionRequestSchema, await jsonBody(req));
        return created(emulator.sendInteraction(input as InteractionInput));
      }
      case 'GET /interactions/:id':
        return { status: 200, body: handleOf(b!).snapshot() };
      case 'POST /interactions/:id/wait': {
        const handle = handleOf(b!);
        const q = parse(WaitSchema, Object.fromEntries(url.searchParams));
        const snapshot = q.for === 'ack' ? await handle.waitForAck(q.timeoutMs) : await handle.waitForFinal({ timeoutMs: q.timeoutMs });
        return { status: 200, body: snapshot };
      }
      case 'POST /interactions/:id/modal-submit': {
        const body = parse(ModalSubmitSchema, await jsonBody(req));
        return created(handleOf(b!).submitModal(body.values, body));
      }
      case 'POST /interactions/:id/press': {
        const body = parse(PressSchema, await jsonBody(req));
        return created(handleOf(b!).pressButton(body.customId, body));
      }
      case 'POST /interactions/:id/select': {
        const body = parse(SelectSchema, await jsonBody(req));
        return created(handleOf(b!).selectMenu(body.customId, body.values, body));
      }
      case 'GET /messages': {
        const channelId = url.searchParams.get('channelId') ?? undefined;
        const guildId = url.searchParams.get('guildId') ?? undefined;
        return { status: 200, body: emulator.messages({ channelId, guildId }) };
      }
      case 'GET /messages/:id': {
        const message = emulator.message(b!);
        if (!message) throw new ControlError(404, `unknown message ${b}`);
        return { status: 200, body: message };
      }
      case 'POST /messages/:id/press': {
        const body = parse(PressSchema, await jsonBody(req));
        return created(emulator.pressButton({ messageId: b!, ...body }));
      }
      case 'POST /messages/:id/select': {
        const body = parse(SelectSchema, await jsonBody(req));
        return created(emulator.selectMenu({ messageId: b!, ...body }));
      }
      case 'POST /messages':
        return { status: 201, body: emulator.postMessage((await jsonBody(req)) as UserMessageInput) };
      case 'POST /messages/:id/command': {
        const body = parse(MessageCommandSchema, await jsonBody(req));
        return created(emulator.runMessageCommand({ messageId: b!, ...body }));
      }
      case 'GET /attachments/:id': {
        const file = emulator.attachment(b!);
        if (!file) throw new ControlError(404, `unknown attachment ${b}`);
        return { status: 200, raw: { data: file.data, contentType: file.contentType } };
      }
    }
    throw new ControlError(404, `no control route ${method} /_emulator/${segments.join('/')}`);
  }

  return async (req: IncomingMessage, res: ServerResponse, segments: string[], url: URL): Promise<void> => {
    const cors = guard.corsHeaders(req.headers.origin);
    if (req.method === 'OPTIONS') {
      if (guard.allowsPreflight(req.headers.origin)) {
        res.writeHead(204, cors);
        res.end();
      } else {
        sendJson(res, 403, { error: 'cross-origin request refused' }, cors);
      }
      return;
    }
    // A body of another type never reaches a route (see request-guard.ts); an upload is its file.
    const refused = isUpload(req, segments) ? undefined : guard.checkBodyType(req, { multipart: false });
    if (refused) {
      sendJson(res, refused.status, { error: refused.reason }, cors);
      return;
    }
    if (req.method === 'GET' && segments.length === 1 && segments[0] === 'events') {
      streamEvents(req, res, url, cors);
      return;
    }
    try {
      const result = await route(req, segments, url);
      if (result.raw) {
        res.writeHead(result.status, { 'content-type': result.raw.contentType, ...cors });
        res.end(result.raw.data);
        return;
      }
      sendJson(res, result.status, result.body, cors);
    } catch (error) {
      if (error instanceof ControlError) sendJson(res, error.status, { error: error.message, details: error.details }, cors);
      else if (error instanceof InteractionInputError) sendJson(res, 422, { error: error.message }, cors);
      else if (error instanceof WaitTimeoutError) sendJson(res, 408, { error: error.message, snapshot: error.snapshot }, cors);
      else if (error instanceof BodyError) sendJson(res, error.status, { error: error.message }, cors);
      else if (error instanceof NoGatewaySessionError) sendJson(res, 409, { error: error.message }, cors);
      else throw error;
    }
  };
}
