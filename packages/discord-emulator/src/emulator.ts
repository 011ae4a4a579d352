/**
 * The emulator: one HTTP server on loopback that serves the REST API (`/api`), the gateway
 * (`/gateway`, WebSocket) and the control API (`/_emulator`), over shared state. Channels,
 * permissions and uploads are in EmulatorAdmin (emulator-admin.ts), which it extends.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIApplicationCommand, APIGatewaySessionStartLimit, APIMessage, APIUser } from 'discord-api-types/v10';
import { assembleEmulator } from './assembly.js';
import type { AttachmentStore } from './attachments.js';
import type { CommandStore } from './commands.js';
import { EmulatorAdmin } from './emulator-admin.js';
import { createEventBus, type EmulatorEvents } from './events.js';
import type { Gateway } from './gateway/gateway.js';
import type { IdentifyBucket, IdentifyLimiter } from './gateway/identify-limit.js';
import type { ShardStatus } from './gateway/protocol.js';
import { readyShards } from './gateway/sessions.js';
import type { GuildChanges } from './guild-changes.js';
import type { GuildMembership } from './guild-membership.js';
import type { GuildDirectory } from './guild-directory.js';
import type { NormalizedGuild } from './guilds.js';
import { InteractionHandle, type ActorOverrides, type HandleHost } from './handle.js';
import type { DeliveryRecord } from './http-delivery/delivery-log.js';
import type { HttpDelivery } from './http-delivery/http-delivery.js';
import type { InteractionSigner } from './http-delivery/signer.js';
import type { InteractionSender } from './interaction-sender.js';
import type { InteractionRegistry } from './interactions/registry.js';
import type { Logger } from './log.js';
import type { MessageStore } from './messages.js';
import { LOOPBACK, OptionsSchema, type EmulatorOptions, type InteractionInput, type ParsedOptions } from './options.js';
import type { ModalValues } from './payloads/modal.js';
import type { RequestGuard } from './request-guard.js';
import type { RestEndpoint } from './rest-endpoint.js';
import type { InteractionSnapshot, RecordedCall, Violation } from './types.js';
import { postUserMessage, type UserMessageInput } from './user-messages.js';
import { RestFaults } from './rest-faults.js';
import { validateCommandList } from './validation/commands.js';
import { waitUntil } from './waiting.js';

export type { Actor, EmulatorOptions, InteractionInput } from './options.js';

export class DiscordEmulator extends EmulatorAdmin implements HandleHost {
  readonly events: EmulatorEvents = createEventBus();
  /** REST faults a test switches on (rest-faults.ts; none by default). */
  readonly restFaults = new RestFaults();
  readonly applicationId: string;
  readonly botUser: APIUser;
  readonly logger: Logger;

  private readonly opts: ParsedOptions;
  private readonly guildDirectory: GuildDirectory;
  private readonly messageStore: MessageStore;
  protected readonly attachments: AttachmentStore;
  protected readonly guildChanges: GuildChanges;
  protected readonly membership: GuildMembership;
  private readonly commandStore: CommandStore;
  private readonly registry: InteractionRegistry;
  private readonly gateway: Gateway;
  private readonly limiter: IdentifyLimiter;
  private readonly rest: RestEndpoint;
  private readonly guard: RequestGuard; // own Host, JSON writes, CORS for one page: request-guard.ts
  private readonly sender: InteractionSender;
  private readonly delivery: HttpDelivery; // interactions over HTTP: http-delivery/
  private readonly server: Server;
  private baseUrl = '';

  /**
   * The application's Ed25519 key pair: Discord signs what it POSTs to an Interactions Endpoint
   * with it. Tests may sign their own requests with `signer.privateKey` (testing: signInteraction).
   */
  readonly signer: InteractionSigner;

  constructor(options: EmulatorOptions) {
    super();
    const parsed = OptionsSchema.parse(options);
    if (!LOOPBACK.has(parsed.host)) throw new Error(`the emulator binds to loopback only, not ${parsed.host}`);
    this.opts = parsed;
    this.applicationId = parsed.applicationId;
    ({
      logger: this.logger,
      botUser: this.botUser,
      guard: this.guard,
      guildDirectory: this.guildDirectory,
      messageStore: this.messageStore,
      attachments: this.attachments,
      guildChanges: this.guildChanges,
      membership: this.membership,
      commandStore: this.commandStore,
      registry: this.registry,
      limiter: this.limiter,
      gateway: this.gateway,
      rest: this.rest,
      signer: this.signer,
      delivery: this.delivery,
      sender: this.sender,
      server: this.server,
    } = assembleEmulator(options, parsed, this));
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
    if (this.opts.interactionsEndpointUrl !== undefined) {
      // Checked like any other endpoint; an emulator that cannot deliver as asked does not start.
      await this.setInteractionsEndpoint(this.opts.interactionsEndpointUrl).catch(async (error: unknown) => {
        await this.close();
        throw error;
      });
    }
    return this;
  }

  async close(): Promise<void> {
    await this.delivery.close();
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

  /** Every rejected call (4xx), every IDENTIFY over a limit and every interaction left unacknowledged. */
  get violations(): Violation[] {
    return this.rest.violations;
  }

  /** Violations and calls are kept until cleared. */
  clearRecords(): void {
    this.rest.clear();
    this.delivery.log.clear();
  }

  // -------------------------------------------------------------------------------------------
  // Interactions over HTTP

  /** The application's public key: 64 lowercase hex characters (Developer Portal "Public Key", `verify_key`). */
  get publicKey(): string {
    return this.signer.publicKey;
  }

  /** Where interactions are POSTed; null: they are dispatched over the gateway. */
  get interactionsEndpointUrl(): string | null {
    return this.delivery.url;
  }

  /**
   * Sets the Interactions Endpoint URL as the Developer Portal does: a PING with an invalid
   * signature must be answered 401 and a signed PING 200 `{"type":1}`, else it throws
   * InteractionsEndpointError (saying which check failed) and keeps the previous URL. null:
   * back to the gateway. Resolves with the URL saved.
   */
  setInteractionsEndpoint(url: string | null): Promise<string | null> {
    return this.delivery.setEndpoint(url);
  }

  /** Every request sent to an Interactions Endpoint (PING checks included), oldest first. */
  get deliveries(): DeliveryRecord[] {
    return this.delivery.log.records;
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

  /**
   * Cuts shards' sockets (all, or `shardId`'s), keeping their sessions, as a network drop does:
   * discord.js RESUMEs and gets what was dispatched meanwhile. No `code`: the socket is destroyed
   * (the client sees 1006); else closed with it (4000: discord.js resumes). Returns how many.
   */
  dropConnection(shardId?: number, opts: { code?: number } = {}): number {
    return this.gateway.dropConnection(shardId, opts.code);
  }

  /**
   * Sends op 9 Invalid Session (all shards, or `shardId`'s): `d: false` ends the session, the
   * client must IDENTIFY again; `resumable: true` sends `d: true`, the client RESUMEs. Returns how many.
   */
  invalidateSession(shardId?: number, opts: { resumable?: boolean } = {}): number {
    return this.gateway.invalidateSession(shardId, opts.resumable ?? false);
  }

  /** What `GET /gateway/bot` answers now: the IDENTIFYs made count against it. */
  sessionStartLimit(): APIGatewaySessionStartLimit {
    return this.limiter.sessionStartLimit();
  }

  /** The max_concurrency buckets that have identified, with when each may identify again. */
  identifyBuckets(): IdentifyBucket[] {
    return this.limiter.bucketStates();
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

  /**
   * Resolves when shards `shardIds` (default: every shard 0..shardCount-1) are connected and
   * have received all their guilds, whichever processes run them; with their statuses by id.
   */
  waitForReady(opts: { shardCount?: number; shardIds?: number[]; timeoutMs?: number } = {}): Promise<ShardStatus[]> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const check = () => readyShards(this.gateway.status(), opts);
    return waitUntil(this.events, 'gateway', check, timeoutMs, () => notReached('gateway ready', timeoutMs));
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
   * Builds an interaction as the Discord client would, dispatches it over the gateway to every
   * session of the shard that owns the guild, and starts its acknowledgement clock. Throws
   * InteractionInputError when Discord's client would not let the user do it (unknown command,
   * missing option, ...).
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

  /** Right-click message `messageId` → Apps → message command `commandName` (registered with type 3). */
  runMessageCommand(input: { commandName: string; messageId: string } & ActorOverrides): InteractionHandle {
    return this.sender.runMessageCommand(input);
  }

  /** A message posted by a member or a webhook, not the bot (user-messages.ts): something to right-click. */
  postMessage(input: UserMessageInput): APIMessage {
    return postUserMessage({ guilds: this.guildDirectory, messages: this.messageStore, events: this.events, botUserId: this.botUser.id }, input);
  }
}

const notReached = (what: string, timeoutMs: number) => new Error(`emulator: ${what} not reached within ${timeoutMs} ms`);
