/**
 * The emulator: one HTTP server on loopback that serves the REST API (`/api`), the gateway
 * (`/gateway`, WebSocket) and the control API (`/_emulator`), over shared state.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  ApplicationCommandOptionType,
  ComponentType,
  type APIApplicationCommand,
  type APIInteraction,
  type APIInteractionDataResolved,
  type APIMessage,
  type APIUser,
} from 'discord-api-types/v10';
import { silentLogger, type Logger } from './log.js';
import { CommandStore } from './commands.js';
import { createControlHandler } from './control.js';
import type { RestResult } from './errors.js';
import { createEventBus, type EmulatorEvents } from './events.js';
import { Gateway, type ShardStatus } from './gateway.js';
import { findComponent, InteractionHandle, type ActorOverrides, type HandleHost } from './handle.js';
import { BodyError, parseBody, readBody, sendJson, splitPath, type Router } from './http.js';
import { InteractionRegistry, type InteractionRecord, type RegisterMeta } from './interactions.js';
import { ALL_PERMISSIONS, hasPermissions, makeUser, memberPermissions, normalizeGuild, type NormalizedGuild } from './guilds.js';
import { MessageStore } from './messages.js';
import {
  buildAutocompleteInteraction,
  buildButtonInteraction,
  buildChatInputInteraction,
  buildCommandOptions,
  buildModalSubmission,
  buildModalSubmitInteraction,
  buildSelectInteraction,
  InteractionInputError,
  type CommandInput,
  type InteractionContext,
  type ModalValues,
} from './payloads.js';
import { createRestRouter, type RestRequest } from './rest.js';
import type { EmulatedChannel, EmulatedGuild, InteractionKind, InteractionSnapshot, RecordedCall, Violation } from './types.js';
import { validateCommandList } from './validation.js';

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
  /** `session_start_limit.max_concurrency`; default 16 so sharded test clients identify without waiting. */
  maxConcurrency?: number;
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
  logger?: Logger;
}

const Snowflake = z.string().regex(/^\d{15,21}$/);

const OptionsSchema = z.object({
  port: z.number().int().min(0).max(65_535).default(0),
  host: z.string().default('127.0.0.1'),
  applicationId: Snowflake,
  botToken: z.string().min(1),
  botUsername: z.string().min(2).max(32).default('feedbot'),
  applicationName: z.string().min(1).default('feedbot'),
  guilds: z.array(z.unknown()),
  shards: z.number().int().min(1).optional(),
  maxConcurrency: z.number().int().min(1).default(16),
  maxGuildsPerShard: z
    .custom<number>((v) => v === Number.POSITIVE_INFINITY || (typeof v === 'number' && Number.isInteger(v) && v >= 1), 'a positive integer or Infinity')
    .default(2500),
  allowedPrivilegedIntents: z.number().int().min(0).default(0),
  heartbeatIntervalMs: z.number().int().min(10).default(41_250),
  ackDeadlineMs: z.number().int().min(1).default(3000),
  tokenLifetimeMs: z.number().int().min(1).default(15 * 60_000),
  maxRecordedCalls: z.number().int().min(1).default(50_000),
  defaultUserId: Snowflake.default('300000000000000001'),
});

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

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
  | { type: 'raw'; payload: APIInteraction };

export class DiscordEmulator implements HandleHost {
  readonly events: EmulatorEvents = createEventBus();
  /** Every REST call, oldest first. */
  readonly calls: RecordedCall[] = [];
  /** Every rejected call (4xx) and every interaction left unacknowledged. */
  readonly violations: Violation[] = [];
  readonly applicationId: string;
  readonly botUser: APIUser;
  readonly logger: Logger;

  private readonly opts: z.infer<typeof OptionsSchema>;
  private readonly guildMap = new Map<string, NormalizedGuild>();
  private readonly guildList: NormalizedGuild[] = [];
  private readonly channelIndex = new Map<string, { guild: NormalizedGuild; channel: EmulatedChannel }>();
  private readonly messageStore: MessageStore;
  private readonly commandStore: CommandStore;
  private readonly registry: InteractionRegistry;
  private readonly gateway: Gateway;
  private readonly restRouter: Router<{ auth: boolean; handle: (req: RestRequest) => RestResult }>;
  private readonly control: (req: IncomingMessage, res: ServerResponse, segments: string[], url: URL) => Promise<void>;
  private readonly server: Server;
  private callSeq = 0;
  private baseUrl = '';

  constructor(options: EmulatorOptions) {
    const parsed = OptionsSchema.parse(options);
    if (!LOOPBACK.has(parsed.host)) throw new Error(`the emulator binds to loopback only, not ${parsed.host}`);
    this.opts = parsed;
    this.logger = options.logger ?? silentLogger();
    this.applicationId = parsed.applicationId;
    this.botUser = makeUser(parsed.applicationId, parsed.botUsername, { bot: true, global_name: null });
    for (const input of options.guilds) this.addGuild(input);
    this.messageStore = new MessageStore(() => `${this.baseUrl}/_emulator/attachments`);
    this.commandStore = new CommandStore(parsed.applicationId);
    this.registry = new InteractionRegistry({
      applicationId: parsed.applicationId,
      botUser: this.botUser,
      ackDeadlineMs: parsed.ackDeadlineMs,
      tokenLifetimeMs: parsed.tokenLifetimeMs,
      messages: this.messageStore,
      events: this.events,
      violation: (v) => this.recordViolation(v),
    });
    this.gateway = new Gateway({
      botToken: parsed.botToken,
      applicationId: parsed.applicationId,
      applicationFlags: 0,
      botUser: this.botUser,
      guilds: () => this.guildList,
      heartbeatIntervalMs: parsed.heartbeatIntervalMs,
      maxGuildsPerShard: parsed.maxGuildsPerShard,
      allowedPrivilegedIntents: parsed.allowedPrivilegedIntents,
      resumeUrl: () => this.gatewayUrl,
      events: this.events,
      logger: this.logger,
    });
    this.restRouter = createRestRouter({
      applicationId: parsed.applicationId,
      applicationName: parsed.applicationName,
      applicationFlags: 0,
      botUser: this.botUser,
      guild: (id) => this.guildMap.get(id),
      channel: (id) => this.channelIndex.get(id),
      guildCount: () => this.guildList.length,
      commands: this.commandStore,
      interactions: this.registry,
      messages: this.messageStore,
      events: this.events,
      gatewayUrl: () => this.gatewayUrl,
      recommendedShards: () => this.recommendedShards(),
      maxConcurrency: parsed.maxConcurrency,
    });
    this.control = createControlHandler(this);
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://emulator.invalid');
      if (url.pathname.replace(/\/+$/, '') !== '/gateway') {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
        return;
      }
      this.gateway.handleUpgrade(req, socket, head, url.searchParams);
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
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${host}:${address.port}`;
    this.logger.info({ apiUrl: this.apiUrl, gatewayUrl: this.gatewayUrl, guilds: this.guildList.length }, 'discord emulator listening');
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

  guilds(): NormalizedGuild[] {
    return this.guildList;
  }

  guild(id: string): NormalizedGuild | undefined {
    return this.guildMap.get(id);
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
    if (guildId !== null && !this.guildMap.has(guildId)) throw new Error(`unknown guild ${guildId}`);
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
    return this.opts.shards ?? Math.max(1, Math.ceil(this.guildList.length / 1000));
  }

  /** Violations and calls are kept until cleared. */
  clearRecords(): void {
    this.calls.length = 0;
    this.violations.length = 0;
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
    return this.waitForEvent('gateway', check, opts.timeoutMs ?? 10_000, 'gateway ready');
  }

  /** Resolves with the first recorded call (past or future) matching `predicate`. */
  waitForCall(predicate: (call: RecordedCall) => boolean, timeoutMs = 5000): Promise<RecordedCall> {
    return this.waitForEvent('call', () => this.calls.find(predicate), timeoutMs, 'REST call');
  }

  /** Resolves when commands of the scope are non-empty (or satisfy `predicate`). */
  waitForCommands(
    guildId: string | null = null,
    predicate: (commands: APIApplicationCommand[]) => boolean = (c) => c.length > 0,
    timeoutMs = 5000,
  ): Promise<APIApplicationCommand[]> {
    return this.waitForEvent(
      'commands',
      () => {
        const list = this.commands(guildId);
        return predicate(list) ? list : undefined;
      },
      timeoutMs,
      'commands',
    );
  }

  private waitForEvent<T>(event: 'gateway' | 'call' | 'commands', check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const now = check();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (value === undefined) return;
        cleanup();
        resolve(value);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`emulator: ${what} not reached within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.events.off(event, listener);
      };
      this.events.on(event, listener);
    });
  }

  // -------------------------------------------------------------------------------------------
  // Interactions

  /**
   * Builds an interaction as the Discord client would, dispatches it over the gateway to the
   * shard that owns the guild, and starts its acknowledgement clock. Throws InteractionInputError
   * when Discord's client would not let the user do it (unknown command, missing option, ...).
   */
  sendInteraction(input: InteractionInput): InteractionHandle {
    switch (input.type) {
      case 'command':
      case 'autocomplete':
        return this.sendCommand(input);
      case 'button':
        return this.pressButton(input);
      case 'select':
        return this.selectMenu(input);
      case 'modal_submit':
        return this.submitModal(input);
      case 'raw':
        return this.sendRaw(input.payload);
    }
  }

  pressButton(input: { messageId: string; customId: string } & ActorOverrides): InteractionHandle {
    const { stored, component, source } = this.componentTarget(input.messageId, input.customId);
    if (component.type !== ComponentType.Button) throw new InteractionInputError(`component "${input.customId}" is not a button`);
    if (component.disabled === true) throw new InteractionInputError(`button "${input.customId}" is disabled`);
    const ctx = this.context({ ...this.actorFrom(source), ...input, guildId: stored.guildId ?? undefined, channelId: stored.message.channel_id });
    const payload = buildButtonInteraction(ctx, structuredClone(stored.message), input.customId);
    return this.dispatch(payload, { kind: 'component', ctx, shardId: null, customId: input.customId, sourceMessageId: stored.message.id });
  }

  selectMenu(input: { messageId: string; customId: string; values: string[] } & ActorOverrides): InteractionHandle {
    const { stored, component, source } = this.componentTarget(input.messageId, input.customId);
    const type = component.type as number;
    if (![3, 5, 6, 7, 8].includes(type)) throw new InteractionInputError(`component "${input.customId}" is not a select menu`);
    if (component.disabled === true) throw new InteractionInputError(`select "${input.customId}" is disabled`);
    const min = typeof component.min_values === 'number' ? component.min_values : 1;
    const max = typeof component.max_values === 'number' ? component.max_values : 1;
    if (input.values.length < min || input.values.length > max) {
      throw new InteractionInputError(`select "${input.customId}" takes ${min}–${max} values, got ${input.values.length}`);
    }
    if (type === 3) {
      const allowed = new Set((component.options as { value: string }[]).map((o) => o.value));
      const bad = input.values.find((v) => !allowed.has(v));
      if (bad !== undefined) throw new InteractionInputError(`select "${input.customId}" has no option "${bad}"`);
    }
    const ctx = this.context({ ...this.actorFrom(source), ...input, guildId: stored.guildId ?? undefined, channelId: stored.message.channel_id });
    const resolved = type === 3 ? undefined : this.resolveSelectValues(ctx.guild, type, input.values);
    const payload = buildSelectInteraction(ctx, structuredClone(stored.message), input.customId, type as ComponentType.StringSelect, input.values, resolved);
    return this.dispatch(payload, { kind: 'component', ctx, shardId: null, customId: input.customId, sourceMessageId: stored.message.id });
  }

  submitModal(input: { interactionId: string; values: ModalValues } & ActorOverrides): InteractionHandle {
    const source = this.registry.get(input.interactionId);
    if (!source) throw new InteractionInputError(`unknown interaction ${input.interactionId}`);
    if (!source.modal) throw new InteractionInputError(`interaction ${input.interactionId} did not show a modal`);
    const components = buildModalSubmission(source.modal, input.values);
    const ctx = this.context({ ...this.actorFrom(source), ...input, guildId: source.ctx.guild.id, channelId: source.ctx.channel.id });
    const message = source.sourceMessageId ? this.messageStore.live(source.sourceMessageId) : undefined;
    const payload = buildModalSubmitInteraction(ctx, source.modal.custom_id, components, message ? structuredClone(message.message) : undefined);
    return this.dispatch(payload, {
      kind: 'modal_submit',
      ctx,
      shardId: null,
      customId: source.modal.custom_id,
      sourceInteractionId: source.id,
      ...(message ? { sourceMessageId: message.message.id } : {}),
    });
  }

  private sendCommand(input: Extract<InteractionInput, { type: 'command' | 'autocomplete' }>): InteractionHandle {
    const ctx = this.context(input);
    const command = this.commandStore.find(ctx.guild.id, input.commandName);
    if (!command) throw new InteractionInputError(`command "/${input.commandName}" is not registered (globally or in guild ${ctx.guild.id})`);
    const required = command.default_member_permissions;
    const ignorePerms = input.type === 'command' && input.ignoreDefaultMemberPermissions === true;
    if (required && !ignorePerms && !hasPermissions(ctx.permissions, required)) {
      throw new InteractionInputError(`"/${command.name}" is hidden from this member: default_member_permissions ${required} not met by ${ctx.permissions}`);
    }
    if (input.type === 'autocomplete') {
      const { options } = buildCommandOptions(command, { ...input, focused: input.focused }, ctx.guild);
      const payload = buildAutocompleteInteraction(ctx, command, options);
      return this.dispatch(payload, { kind: 'autocomplete', ctx, shardId: null, commandName: command.name });
    }
    const { options, resolved } = buildCommandOptions(command, { ...input, focused: undefined }, ctx.guild);
    const payload = buildChatInputInteraction(ctx, command, options, resolved);
    return this.dispatch(payload, { kind: 'command', ctx, shardId: null, commandName: command.name });
  }

  private sendRaw(payload: APIInteraction): InteractionHandle {
    const guildId = payload.guild_id;
    if (!guildId) throw new InteractionInputError('raw interactions must carry guild_id');
    const channelId = payload.channel?.id ?? payload.channel_id;
    const userId = payload.member?.user.id ?? payload.user?.id;
    const locale = 'locale' in payload ? String(payload.locale) : undefined;
    const ctx = this.context({ guildId, channelId, userId, locale });
    const kinds: Record<number, InteractionKind> = { 2: 'command', 3: 'component', 4: 'autocomplete', 5: 'modal_submit' };
    const kind = kinds[payload.type];
    if (!kind) throw new InteractionInputError(`unsupported interaction type ${payload.type}`);
    const message = 'message' in payload && payload.message ? payload.message : undefined;
    return this.dispatch(payload, { kind, ctx, shardId: null, ...(message ? { sourceMessageId: message.id } : {}) });
  }

  private dispatch(payload: APIInteraction, meta: RegisterMeta): InteractionHandle {
    const { shardId } = this.gateway.dispatchToGuild(meta.ctx.guild.id, 'INTERACTION_CREATE', payload);
    const rec = this.registry.register(payload, { ...meta, shardId });
    this.logger.debug({ interactionId: rec.id, kind: rec.kind, shardId }, 'interaction dispatched');
    return new InteractionHandle(this, rec.id, rec.token, payload);
  }

  private componentTarget(messageId: string, customId: string) {
    const stored = this.messageStore.live(messageId);
    if (!stored) throw new InteractionInputError(`unknown message ${messageId}`);
    if (stored.message.author.id !== this.botUser.id) throw new InteractionInputError(`message ${messageId} is not the bot's`);
    const component = findComponent(stored.message.components, customId);
    if (!component) throw new InteractionInputError(`message ${messageId} has no component "${customId}"`);
    const source = stored.interactionId ? this.registry.get(stored.interactionId) : undefined;
    return { stored, component, source };
  }

  private actorFrom(source: InteractionRecord | undefined): ActorOverrides {
    if (!source) return {};
    return { userId: source.ctx.user.id, username: source.ctx.user.username, locale: String(source.ctx.locale) };
  }

  private context(actor: Actor): InteractionContext {
    const guild = actor.guildId ? this.guildMap.get(actor.guildId) : this.guildList[0];
    if (!guild) throw new InteractionInputError(actor.guildId ? `unknown guild ${actor.guildId}` : 'no guild configured');
    const channel = actor.channelId
      ? guild.channels.find((c) => c.id === actor.channelId)
      : guild.channels.find((c) => c.type === 0 || c.type === 5);
    if (!channel) throw new InteractionInputError(actor.channelId ? `guild ${guild.id} has no channel ${actor.channelId}` : `guild ${guild.id} has no text channel`);
    const userId = actor.userId ?? this.opts.defaultUserId;
    const member = guild.members.find((m) => m.userId === userId);
    const roles = actor.roles ?? member?.roles ?? [];
    const username = actor.username ?? member?.username ?? (userId === this.opts.defaultUserId ? 'tester' : `user${userId.slice(-4)}`);
    const permissions = actor.permissions ?? memberPermissions(guild, userId, roles);
    if (!/^\d+$/.test(permissions)) throw new InteractionInputError(`permissions must be a decimal bit set, got "${permissions}"`);
    return {
      applicationId: this.applicationId,
      guild,
      channel,
      user: makeUser(userId, username, { global_name: member?.globalName ?? null }),
      memberRoles: roles,
      nick: member?.nick ?? null,
      permissions,
      locale: actor.locale ?? 'en-US',
      appPermissions: ALL_PERMISSIONS,
    };
  }

  private resolveSelectValues(guild: NormalizedGuild, type: number, values: string[]): APIInteractionDataResolved {
    const optionType: Record<number, ApplicationCommandOptionType> = {
      5: ApplicationCommandOptionType.User,
      6: ApplicationCommandOptionType.Role,
      7: ApplicationCommandOptionType.Mentionable,
      8: ApplicationCommandOptionType.Channel,
    };
    const fake = { id: '0', name: 'select', type: 1, application_id: this.applicationId, description: '', version: '0', default_member_permissions: null } as unknown as APIApplicationCommand;
    const resolved: APIInteractionDataResolved = {};
    for (const [i, value] of values.entries()) {
      const opt = { type: optionType[type], name: `v${i}`, description: 'x' };
      const built = buildCommandOptions({ ...fake, options: [opt] } as APIApplicationCommand, { options: { [`v${i}`]: value } }, guild);
      for (const key of ['users', 'members', 'roles', 'channels'] as const) {
        if (built.resolved?.[key]) resolved[key] = { ...resolved[key], ...built.resolved[key] } as never;
      }
    }
    return resolved;
  }

  // -------------------------------------------------------------------------------------------
  // HTTP

  private addGuild(input: EmulatedGuild): void {
    const guild = normalizeGuild(input);
    if (this.guildMap.has(guild.id)) throw new Error(`duplicate guild id ${guild.id}`);
    this.guildMap.set(guild.id, guild);
    this.guildList.push(guild);
    for (const channel of guild.channels) this.channelIndex.set(channel.id, { guild, channel });
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const segments = splitPath(url.pathname);
    try {
      if (segments[0] === 'api') {
        const versioned = /^v\d+$/.test(segments[1] ?? '');
        await this.handleRest(req, res, segments.slice(versioned ? 2 : 1), url);
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

  private async handleRest(req: IncomingMessage, res: ServerResponse, segments: string[], url: URL): Promise<void> {
    const started = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const path = `/${segments.join('/')}`;
    const query = Object.fromEntries(url.searchParams);
    const match = this.restRouter.match(method, segments);
    let route = path.replace(/\d{15,21}/g, ':id');
    let result: RestResult;
    let body: unknown;
    let files: { field: string; name: string; contentType: string; data: Buffer }[] = [];
    try {
      const raw = await readBody(req);
      try {
        ({ body, files } = await parseBody(req, raw));
      } catch {
        body = raw.toString('utf8');
        throw new BodyError('invalid body', 400);
      }
      if (!match) {
        result = { status: 404, body: { message: '404: Not Found', code: 0 }, violation: { kind: 'not_found' } };
      } else if (match.handler === null) {
        route = match.pattern;
        result = { status: 405, body: { message: '405: Method Not Allowed', code: 0 }, violation: { kind: 'bad_request' } };
      } else {
        route = routeTemplate(match.pattern, match.params);
        if (match.handler.auth && !this.authorized(req)) {
          result = { status: 401, body: { message: '401: Unauthorized', code: 0 }, violation: { kind: 'unauthorized' } };
        } else {
          result = match.handler.handle({ params: match.params, query: url.searchParams, body, files });
        }
      }
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      result =
        error.status === 413
          ? { status: 413, body: { message: 'Request entity too large', code: 40005 }, violation: { kind: 'bad_request' } }
          : { status: 400, body: { message: 'The request body contains invalid JSON.', code: 50109 }, violation: { kind: 'bad_request' } };
    }
    if (result.raw) {
      res.writeHead(result.status, { 'content-type': result.raw.contentType });
      res.end(result.raw.data);
    } else {
      sendJson(res, result.status, result.body);
    }
    const call: RecordedCall = {
      seq: ++this.callSeq,
      at: started,
      method,
      path,
      route,
      query,
      body,
      files: files.map((f) => ({ name: f.name, size: f.data.length, contentType: f.contentType })),
      status: result.status,
      response: result.body,
      durationMs: Date.now() - started,
    };
    this.calls.push(call);
    if (this.calls.length > this.opts.maxRecordedCalls) this.calls.shift();
    this.logger.debug({ method, route, status: result.status }, 'rest call');
    this.events.emit('call', call);
    if (result.violation) {
      const errorBody = (result.body ?? {}) as { code?: number; message?: string };
      const violation: Omit<Violation, 'at'> = {
        kind: result.violation.kind,
        status: result.status,
        code: errorBody.code ?? 0,
        message: errorBody.message ?? '',
        method,
        route,
        path,
        ...(result.violation.interactionId ? { interactionId: result.violation.interactionId } : {}),
        ...(result.violation.errors !== undefined ? { errors: result.violation.errors } : {}),
        body,
      };
      this.recordViolation(violation);
      if (result.violation.interactionId) {
        this.registry.noteError(result.violation.interactionId, {
          at: started,
          method,
          route,
          status: result.status,
          code: violation.code,
          message: violation.message,
        });
      }
    }
  }

  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization;
    return header === `Bot ${this.opts.botToken}`;
  }

  private recordViolation(v: Omit<Violation, 'at'>): void {
    const violation: Violation = { at: Date.now(), ...v };
    this.violations.push(violation);
    this.logger.warn({ kind: v.kind, status: v.status, code: v.code, route: v.route, errors: v.errors }, `discord would reject: ${v.message}`);
    this.events.emit('violation', violation);
  }
}

/** `/webhooks/:app/:token/messages/:message` with `@original` kept literally. */
function routeTemplate(pattern: string, params: Record<string, string>): string {
  return pattern
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part;
      const value = params[part.slice(1)] ?? '';
      return value.startsWith('@') ? value : part;
    })
    .join('/');
}

