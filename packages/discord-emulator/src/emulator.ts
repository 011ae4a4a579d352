/**
 * The emulator: one HTTP server on loopback that serves the REST API (`/api`), the gateway
 * (`/gateway`, WebSocket) and the control API (`/_emulator`), over shared state.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIApplicationCommand, APIMessage, APIUser } from 'discord-api-types/v10';
import { CommandStore } from './commands.js';
import { createControlHandler } from './control.js';
import { createEventBus, type EmulatorEvents } from './events.js';
import { Gateway } from './gateway/gateway.js';
import type { ShardStatus } from './gateway/protocol.js';
import { GuildDirectory } from './guild-directory.js';
import { makeUser, type NormalizedGuild } from './guilds.js';
import { InteractionHandle, type ActorOverrides, type HandleHost } from './handle.js';
import { sendJson, splitPath } from './http.js';
import { InteractionSender } from './interaction-sender.js';
import { InteractionRegistry } from './interactions/registry.js';
import { silentLogger, type Logger } from './log.js';
import { MessageStore } from './messages.js';
import { LOOPBACK, OptionsSchema, type EmulatorOptions, type InteractionInput, type ParsedOptions } from './options.js';
import type { ModalValues } from './payloads/modal.js';
import { RequestGuard, refuseHandshake } from './request-guard.js';
import { RestEndpoint } from './rest-endpoint.js';
import { createRestRouter } from './rest.js';
import type { InteractionSnapshot, RecordedCall, Violation } from './types.js';
import { validateCommandList } from './validation/commands.js';
import { waitUntil } from './waiting.js';

export type { Actor, EmulatorOptions, InteractionInput } from './options.js';

export class DiscordEmulator implements HandleHost {
  readonly events: EmulatorEvents = createEventBus();
  readonly applicationId: string;
  readonly botUser: APIUser;
  readonly logger: Logger;

  private readonly opts: ParsedOptions;
  private readonly guildDirectory: GuildDirectory;
  private readonly messageStore: MessageStore;
  private readonly commandStore: CommandStore;
  private readonly registry: InteractionRegistry;
  private readonly gateway: Gateway;
  private readonly rest: RestEndpoint;
  private readonly guard: RequestGuard; // own Host, JSON writes, CORS for one page: request-guard.ts
  private readonly sender: InteractionSender;
  private readonly control: (req: IncomingMessage, res: ServerResponse, segments: string[], url: URL) => Promise<void>;
  private readonly server: Server;
  private baseUrl = '';

  constructor(options: EmulatorOptions) {
    const parsed = OptionsSchema.parse(options);
    if (!LOOPBACK.has(parsed.host)) throw new Error(`the emulator binds to loopback only, not ${parsed.host}`);
    this.opts = parsed;
    const guard = (this.guard = new RequestGuard(parsed.corsOrigin));
    const logger = (this.logger = options.logger ?? silentLogger());
    const applicationId = (this.applicationId = parsed.applicationId);
    const botUser = (this.botUser = makeUser(applicationId, parsed.botUsername, { bot: true, global_name: null }));
    const guilds = (this.guildDirectory = new GuildDirectory(options.guilds));
    const events = this.events;
    const messages = (this.messageStore = new MessageStore(() => `${this.baseUrl}/_emulator/attachments`));
    const commands = (this.commandStore = new CommandStore(applicationId));
    const registry = (this.registry = new InteractionRegistry({
      ackDeadlineMs: parsed.ackDeadlineMs,
      tokenLifetimeMs: parsed.tokenLifetimeMs,
      messages,
      events,
      violation: (v) => this.rest.recordViolation(v),
    }));
    const gateway = (this.gateway = new Gateway({
      botToken: parsed.botToken,
      applicationId,
      applicationFlags: 0,
      botUser,
      guilds: () => guilds.list,
      heartbeatIntervalMs: parsed.heartbeatIntervalMs,
      maxGuildsPerShard: parsed.maxGuildsPerShard,
      allowedPrivilegedIntents: parsed.allowedPrivilegedIntents,
      resumeUrl: () => this.gatewayUrl,
      events,
      logger,
    }));
    const router = createRestRouter({
      applicationId,
      applicationName: parsed.applicationName,
      applicationFlags: 0,
      botUser,
      guild: (id) => guilds.get(id),
      channel: (id) => guilds.channel(id),
      guildCount: () => guilds.list.length,
      commands,
      responses: { applicationId, botUser, registry, messages, events },
      messages,
      events,
      gatewayUrl: () => this.gatewayUrl,
      recommendedShards: () => this.recommendedShards(),
      maxConcurrency: parsed.maxConcurrency,
    });
    this.rest = new RestEndpoint({ router, guard, botToken: parsed.botToken, maxRecordedCalls: parsed.maxRecordedCalls, registry, events, logger });
    this.sender = new InteractionSender({
      applicationId,
      botUser,
      defaultUserId: parsed.defaultUserId,
      guilds,
      commands,
      registry,
      messages,
      gateway,
      logger,
      host: this,
    });
    this.control = createControlHandler(this, guard);
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('upgrade', (req, socket, head) => {
      const refused = guard.checkSender(req, { handshake: true });
      if (refused) return refuseHandshake(socket, refused);
      const url = new URL(req.url ?? '/', 'http://emulator.invalid');
      if (url.pathname.replace(/\/+$/, '') !== '/gateway') {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
        return;
      }
      gateway.handleUpgrade(req, socket, head, url.searchParams);
    });
  }

  // -------------------------------------------------------------------------------------------
  // URLs and lifecycle

  /** Value for DISCORD_API_URL, i.e. discord.js `rest.api` (discord.js appends `/v10`). */
  get apiUrl(): string {
    return `${this.baseUrl}/api`;
  }

  /** The versioned REST base, for calling the emulator directly. */
  get restUrl(): string {
    return `${this.baseUrl}/api/v10`;
  }

  /** What `GET /gateway/bot` returns; discord.js appends `?v=10&encoding=json`. */
  get gatewayUrl(): string {
    return `${this.baseUrl.replace(/^http/, 'ws')}/gateway`;
  }

  get controlUrl(): string {
    return `${this.baseUrl}/_emulator`;
  }

  get ackDeadlineMs(): number {
    return this.opts.ackDeadlineMs;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    this.guard.listeningOn(address);
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${host}:${address.port}`;
    this.logger.info({ apiUrl: this.apiUrl, gatewayUrl: this.gatewayUrl, guilds: this.guildDirectory.list.length }, 'discord emulator listening');
    return this;
  }

  async close(): Promise<void> {
    this.registry.close();
    this.events.emit('gateway', { type: 'close', at: Date.now(), shard: null, detail: 'emulator closing' });
    await this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.events.removeAllListeners();
  }

  // -------------------------------------------------------------------------------------------
  // State

  /** Every REST call, oldest first. */
  get calls(): RecordedCall[] {
    return this.rest.calls;
  }

  /** Every rejected call (4xx) and every interaction left unacknowledged. */
  get violations(): Violation[] {
    return this.rest.violations;
  }

  /** Violations and calls are kept until cleared. */
  clearRecords(): void {
    this.rest.clear();
  }

  guilds(): NormalizedGuild[] {
    return this.guildDirectory.list;
  }

  guild(id: string): NormalizedGuild | undefined {
    return this.guildDirectory.get(id);
  }

  /** Commands as registered: global when `guildId` is omitted or null, else that guild's. */
  commands(guildId?: string | null): APIApplicationCommand[] {
    return structuredClone(this.commandStore.list(guildId ?? null));
  }

  /** Guild ids that have guild-scoped commands. */
  commandGuildIds(): string[] {
    return this.commandStore.guildIds();
  }

  /** Registers commands without a REST call (fixtures); validated like a bulk overwrite. */
  setCommands(commands: unknown[], guildId: string | null = null): APIApplicationCommand[] {
    const errors = validateCommandList(commands);
    if (!errors.ok) throw new Error(`invalid commands: ${JSON.stringify(errors.tree())}`);
    if (guildId !== null && !this.guildDirectory.get(guildId)) throw new Error(`unknown guild ${guildId}`);
    const list = this.commandStore.overwrite(guildId, commands as Record<string, unknown>[]);
    this.events.emit('commands', { guildId, commands: structuredClone(list) });
    return structuredClone(list);
  }

  message(id: string): APIMessage | undefined {
    const stored = this.messageStore.live(id);
    return stored ? structuredClone(stored.message) : undefined;
  }

  messages(filter: { channelId?: string; guildId?: string } = {}): APIMessage[] {
    return this.messageStore.list(filter).map((m) => structuredClone(m.message));
  }

  attachment(id: string) {
    return this.messageStore.attachment(id);
  }

  shards(): ShardStatus[] {
    return this.gateway.status();
  }

  recommendedShards(): number {
    return this.opts.shards ?? Math.max(1, Math.ceil(this.guildDirectory.list.length / 1000));
  }

  /** Sends op 7 (Reconnect) to connected shards; discord.js then resumes. Returns how many. */
  requestReconnect(shardId?: number): number {
    return this.gateway.requestReconnect(shardId);
  }

  interaction(id: string): InteractionHandle | undefined {
    const rec = this.registry.get(id);
    return rec ? new InteractionHandle(this, rec.id, rec.token, rec.payload) : undefined;
  }

  interactions(): InteractionSnapshot[] {
    return this.registry.list().map((r) => this.registry.snapshot(r));
  }

  snapshotOf(id: string): InteractionSnapshot {
    const rec = this.registry.get(id);
    if (!rec) throw new Error(`unknown interaction ${id}`);
    return this.registry.snapshot(rec);
  }

  // -------------------------------------------------------------------------------------------
  // Waiting

  /** Resolves when every shard 0..n-1 has identified and received all its guilds. */
  waitForReady(opts: { shardCount?: number; timeoutMs?: number } = {}): Promise<ShardStatus[]> {
    const check = (): ShardStatus[] | undefined => {
      const live = this.gateway.status().filter((s) => s.connected && s.guildsSentAt !== null);
      const count = opts.shardCount ?? live[0]?.shard[1];
      if (count === undefined) return undefined;
      const byShard = new Map(live.filter((s) => s.shard[1] === count).map((s) => [s.shard[0], s]));
      if (byShard.size < count) return undefined;
      return [...byShard.values()].sort((a, b) => a.shard[0] - b.shard[0]);
    };
    return waitUntil(this.events, 'gateway', check, opts.timeoutMs ?? 10_000, () => notReached('gateway ready', opts.timeoutMs ?? 10_000));
  }

  /** Resolves with the first recorded call (past or future) matching `predicate`. */
  waitForCall(predicate: (call: RecordedCall) => boolean, timeoutMs = 5000): Promise<RecordedCall> {
    return waitUntil(this.events, 'call', () => this.calls.find(predicate), timeoutMs, () => notReached('REST call', timeoutMs));
  }

  /** Resolves when commands of the scope are non-empty (or satisfy `predicate`). */
  waitForCommands(
    guildId: string | null = null,
    predicate: (commands: APIApplicationCommand[]) => boolean = (c) => c.length > 0,
    timeoutMs = 5000,
  ): Promise<APIApplicationCommand[]> {
    const check = () => {
      const list = this.commands(guildId);
      return predicate(list) ? list : undefined;
    };
    return waitUntil(this.events, 'commands', check, timeoutMs, () => notReached('commands', timeoutMs));
  }

  // -------------------------------------------------------------------------------------------
  // Interactions

  /**
   * Builds an interaction as the Discord client would, dispatches it over the gateway to the
   * shard that owns the guild, and starts its acknowledgement clock. Throws InteractionInputError
   * when Discord's client would not let the user do it (unknown command, missing option, ...).
   */
  sendInteraction(input: InteractionInput): InteractionHandle {
    return this.sender.send(input);
  }

  pressButton(input: { messageId: string; customId: string } & ActorOverrides): InteractionHandle {
    return this.sender.pressButton(input);
  }

  selectMenu(input: { messageId: string; customId: string; values: string[] } & ActorOverrides): InteractionHandle {
    return this.sender.selectMenu(input);
  }

  submitModal(input: { interactionId: string; values: ModalValues } & ActorOverrides): InteractionHandle {
    return this.sender.submitModal(input);
  }

  // -------------------------------------------------------------------------------------------
  // HTTP

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = this.guard.checkSender(req);
    if (refused) return sendJson(res, refused.status, { error: refused.reason });
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const segments = splitPath(url.pathname);
    try {
      if (segments[0] === 'api') {
        const versioned = /^v\d+$/.test(segments[1] ?? '');
        await this.rest.handle(req, res, segments.slice(versioned ? 2 : 1), url);
        return;
      }
      if (segments[0] === '_emulator') {
        await this.control(req, res, segments.slice(1), url);
        return;
      }
      sendJson(res, 404, { message: '404: Not Found', code: 0 });
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'emulator request failed');
      if (!res.headersSent) sendJson(res, 500, { message: 'Internal emulator error', code: 0 });
      else res.end();
    }
  }
}

const notReached = (what: string, timeoutMs: number) => new Error(`emulator: ${what} not reached within ${timeoutMs} ms`);
