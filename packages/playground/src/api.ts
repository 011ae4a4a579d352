/**
 * The playground's JSON API: what the page may ask the Discord emulator to do, as one of the two
 * demo users (an admin with Manage Server, a plain member) and in English or Spanish: commands,
 * autocomplete, button presses, select picks, forms and message commands (right-click → Apps). The page
 * never chooses raw permissions or user ids; it names an actor and a locale.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  InteractionInputError,
  NoGatewaySessionError,
  WaitTimeoutError,
  type DiscordEmulator,
  type InteractionHandle,
  type MessageEvent,
  type InteractionSnapshot,
} from '@feedbot/discord-emulator';
import { Who, type ActorKey, type PlaygroundActor } from './actors.js';
import { uploadRoute } from './files.js';
import { createGuildAdmin } from './guild-admin.js';
import { HttpError, parseWith, readJson, sendJson } from './http.js';

export { ACTOR_KEYS, LOCALES, type ActorKey, type PlaygroundActor } from './actors.js';

/** Something the page shows once at the top, e.g. that the demo set the API key itself. */
export interface PlaygroundNote {
  kind: 'info' | 'warning';
  text: { en: string; es: string };
}

export interface PlaygroundDeps {
  emulator: DiscordEmulator;
  guildId: string;
  actors: Record<ActorKey, PlaygroundActor>;
  botAvatar: string;
  /** The sandbox's https origin; the page rewrites it to the /sandbox proxy. */
  sandboxOrigin: string;
  /** A key for the demo server, shown so a visitor can try `/apikey set` by hand (local sandbox only). */
  demoKey: string;
  notes: () => PlaygroundNote[];
  botRunning: () => boolean;
  /** Bot processes behind the Interactions Endpoint (HTTP transport); default 1. */
  replicas?: number;
}

const Snowflake = z.string().regex(/^\d{15,21}$/, 'must be a snowflake');
const Command = {
  commandName: z.string().min(1).max(32),
  subcommand: z.string().min(1).max(32).optional(),
  subcommandGroup: z.string().min(1).max(32).optional(),
  options: z.record(z.string().min(1).max(32), z.union([z.string().max(6000), z.number(), z.boolean()])).default({}),
  channelId: Snowflake,
};
const CommandSchema = z.object({ ...Command, ...Who });
const AutocompleteSchema = z.object({ ...Command, ...Who, focused: z.string().min(1).max(32) });
const PressSchema = z.object({ messageId: Snowflake, customId: z.string().min(1).max(100), ...Who });
const CustomId = z.string().min(1).max(100);
/** A select's picks: option values (up to 100 characters) or ids, at most Discord's 25. */
const Picks = z.array(z.string().min(1).max(100)).max(25);
const SelectSchema = z.object({ messageId: Snowflake, customId: CustomId, values: Picks, ...Who });
/** A text input's text, a select's or group's picks, a checkbox's state, by custom_id. */
const ModalSchema = z.object({ interactionId: Snowflake, values: z.record(CustomId, z.union([z.string().max(4000), Picks, z.boolean()])), ...Who });
/** Right-click a message → Apps → a message command (type 3), by its registered name. */
const MessageCommandSchema = z.object({ messageId: Snowflake, commandName: z.string().min(1).max(32), ...Who });

/** How long autocomplete waits for the bot; Discord gives it 3 s. */
const AUTOCOMPLETE_WAIT_MS = 3500;

export function createApi(deps: PlaygroundDeps) {
  const { emulator } = deps;
  const guildAdmin = createGuildAdmin(deps);

  const actor = (key: ActorKey, locale: string) => {
    const a = deps.actors[key];
    return { userId: a.userId, username: a.username, permissions: a.permissions, locale };
  };

  function state() {
    const guild = emulator.guild(deps.guildId);
    if (!guild) throw new HttpError(500, `the emulator has no guild ${deps.guildId}`);
    const channels = guild.channels
      .filter((c) => c.type === 0 || c.type === 5)
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
      .map((c) => ({ id: c.id, name: c.name, type: c.type, parentId: c.parentId ?? null }));
    const categories = guild.channels.filter((c) => c.type === 4).map((c) => ({ id: c.id, name: c.name }));
    const endpoint = emulator.interactionsEndpointUrl;
    return {
      guild: { id: guild.id, name: guild.name, ownerId: guild.ownerId },
      channels,
      categories,
      // Every channel, for channel selects (which may offer voice channels or categories too).
      allChannels: guild.channels
        .slice()
        .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
        .map((c) => ({ id: c.id, name: c.name, type: c.type, parentId: c.parentId ?? null })),
      roles: guild.roles.map((r) => ({ id: r.id, name: r.name, color: r.color ?? 0 })),
      members: guild.members.map((m) => ({ id: m.userId, name: m.globalName ?? m.username ?? m.userId })),
      actors: deps.actors,
      bot: { id: emulator.botUser.id, username: emulator.botUser.username, avatar: deps.botAvatar, running: deps.botRunning() },
      // What the emulator does with an interaction: dispatch it over the gateway, or POST it to the endpoint.
      transport: endpoint === null ? 'gateway' : 'http',
      endpoint,
      replicas: endpoint === null ? 1 : (deps.replicas ?? 1),
      commands: [...emulator.commands(null), ...emulator.commands(deps.guildId)],
      sandboxOrigin: new URL(deps.sandboxOrigin).origin,
      // Attachment URLs start with this; the page links them through the playground's /attachments/.
      attachmentsUrl: `${emulator.controlUrl}/attachments/`,
      demoKey: deps.demoKey,
      notes: deps.notes(),
    };
  }

  /** Runs an emulator call, turning what the Discord client would refuse into 4xx answers. */
  function attempt(fn: () => InteractionHandle): InteractionHandle {
    // Over HTTP the emulator would POST to an endpoint nobody listens on; refuse as over the gateway.
    if (emulator.interactionsEndpointUrl !== null && !deps.botRunning()) throw new HttpError(409, 'feedbot is offline: its process is not running');
    try {
      return fn();
    } catch (error) {
      if (error instanceof InteractionInputError) throw new HttpError(422, error.message);
      if (error instanceof NoGatewaySessionError) throw new HttpError(409, 'feedbot is offline: its process is not connected to the emulator');
      throw error;
    }
  }

  async function autocomplete(body: z.infer<typeof AutocompleteSchema>) {
    const { actor: who, locale, ...input } = body;
    const handle = attempt(() => emulator.sendInteraction({ type: 'autocomplete', ...input, guildId: deps.guildId, ...actor(who, locale) }));
    try {
      const snapshot = await handle.waitForAck(AUTOCOMPLETE_WAIT_MS);
      return { choices: snapshot.choices ?? [] };
    } catch (error) {
      if (error instanceof WaitTimeoutError) return { choices: [], timedOut: true };
      throw error;
    }
  }

  async function route(req: IncomingMessage, url: URL): Promise<{ status: number; body: unknown }> {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/api/state') return { status: 200, body: state() };
    const query = url.searchParams;
    const other = (await guildAdmin.route(req, method, path)) ?? (await uploadRoute(emulator, req, method, path, query));
    if (other) return other;
    const one = /^\/api\/interactions\/(\d{15,21})$/.exec(path);
    if (method === 'GET' && one) {
      const handle = emulator.interaction(one[1]!);
      if (!handle) throw new HttpError(404, 'unknown interaction');
      return { status: 200, body: handle.snapshot() };
    }
    if (method !== 'POST') throw new HttpError(404, 'not found');
    switch (path) {
      case '/api/commands': {
        const { actor: who, locale, ...input } = parseWith(CommandSchema, await readJson(req));
        const handle = attempt(() => emulator.sendInteraction({ type: 'command', ...input, guildId: deps.guildId, ...actor(who, locale) }));
        return { status: 201, body: handle.snapshot() };
      }
      case '/api/autocomplete':
        return { status: 200, body: await autocomplete(parseWith(AutocompleteSchema, await readJson(req))) };
      case '/api/press': {
        const { actor: who, locale, ...input } = parseWith(PressSchema, await readJson(req));
        const handle = attempt(() => emulator.pressButton({ ...input, ...actor(who, locale) }));
        return { status: 201, body: handle.snapshot() };
      }
      case '/api/select': {
        const { actor: who, locale, ...input } = parseWith(SelectSchema, await readJson(req));
        const handle = attempt(() => emulator.selectMenu({ ...input, ...actor(who, locale) }));
        return { status: 201, body: handle.snapshot() };
      }
      case '/api/message-command': {
        const { actor: who, locale, ...input } = parseWith(MessageCommandSchema, await readJson(req));
        const handle = attempt(() => emulator.runMessageCommand({ ...input, ...actor(who, locale) }));
        return { status: 201, body: handle.snapshot() };
      }
      case '/api/modal': {
        const { actor: who, locale, ...input } = parseWith(ModalSchema, await readJson(req));
        const handle = attempt(() => emulator.submitModal({ ...input, ...actor(who, locale) }));
        return { status: 201, body: handle.snapshot() };
      }
    }
    throw new HttpError(404, 'not found');
  }

  /** `url`: the request's target, parsed once by the server (which answers 400 when it does not parse). */
  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      const result = await route(req, url);
      sendJson(res, result.status, result.body);
    } catch (error) {
      if (error instanceof HttpError) sendJson(res, error.status, { error: error.message, details: error.details });
      else throw error;
    }
  }

  return { handle, state };
}

export type EventsStream = { close(): void };

/**
 * `GET /api/events`: the emulator's interaction snapshots, message changes and changes to the
 * server's channels and roles as server-sent events, so replies, deferrals, in-place updates and
 * the bot's channel posts reach the page as they happen; and the demo's notes when they change
 * (the server's key removed or set by a command), so the banner never tells an old story.
 */
export function streamEvents(emulator: DiscordEmulator, res: ServerResponse, botRunning: () => boolean, notes: () => PlaygroundNote[] = () => []): EventsStream {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  const write = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  // The notes as they are now: they may have changed since the page read /api/state.
  let shownNotes = JSON.stringify(notes());
  write('hello', { botRunning: botRunning(), notes: JSON.parse(shownNotes) as unknown });
  const onInteraction = (s: InteractionSnapshot) => write('interaction', s);
  const onMessage = (m: MessageEvent) => write('message', m);
  // The page reads the server's description again when its channels or roles change.
  const onGuild = (e: { guildId: string }) => write('guild', { guildId: e.guildId });
  emulator.events.on('interaction', onInteraction);
  emulator.events.on('message', onMessage);
  emulator.events.on('channel', onGuild);
  emulator.events.on('guild', onGuild);
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  ping.unref();
  // The page shows whether the bot process is up; it can only stop, so a cheap check suffices.
  let running = botRunning();
  const watch = setInterval(() => {
    const current = notes();
    const text = JSON.stringify(current);
    if (text !== shownNotes) {
      shownNotes = text;
      write('notes', { notes: current });
    }
    if (botRunning() === running) return;
    running = !running;
    write('bot', { botRunning: running });
  }, 1000);
  watch.unref();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(ping);
    clearInterval(watch);
    emulator.events.off('interaction', onInteraction);
    emulator.events.off('message', onMessage);
    emulator.events.off('channel', onGuild);
    emulator.events.off('guild', onGuild);
    res.end();
  };
  res.on('close', close);
  return { close };
}
