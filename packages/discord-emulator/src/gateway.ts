/**
 * The JSON gateway, as @discordjs/ws 1.x speaks it: HELLO → IDENTIFY → READY + GUILD_CREATE per
 * guild of the shard, heartbeats answered with op 11, RESUME with replay, and dispatches
 * (INTERACTION_CREATE) routed to the shard that owns the guild.
 *
 * Optional `compress=zlib-stream` is supported (discord.js asks for it only when zlib-sync is
 * installed). Encoding must be json; ETF is refused like an unsupported version.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import zlib from 'node:zlib';
import { WebSocketServer, type RawData, WebSocket } from 'ws';
import { z } from 'zod';
import type { APIUser } from 'discord-api-types/v10';
import type { Logger } from './log.js';
import type { EmulatorEvents, GatewayEvent } from './events.js';
import { guildCreatePayload, type NormalizedGuild } from './guilds.js';
import { sessionId as newSessionId, shardForGuild } from './snowflake.js';

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

const PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15);
const REPLAY_BUFFER = 200;
const GUILD_BATCH = 250;

const IdentifySchema = z.object({
  token: z.string(),
  properties: z.record(z.string(), z.unknown()),
  intents: z.unknown(),
  shard: z.unknown().optional(),
  compress: z.boolean().optional(),
  large_threshold: z.number().optional(),
  presence: z.unknown().optional(),
});

const ResumeSchema = z.object({ token: z.string(), session_id: z.string(), seq: z.number().int().nullable() });

export interface GatewayDeps {
  botToken: string;
  applicationId: string;
  applicationFlags: number;
  botUser: APIUser;
  guilds: () => NormalizedGuild[];
  heartbeatIntervalMs: number;
  maxGuildsPerShard: number;
  allowedPrivilegedIntents: number;
  resumeUrl: () => string;
  events: EmulatorEvents;
  logger: Logger;
}

interface Session {
  id: string;
  shard: [number, number];
  intents: number;
  seq: number;
  conn: Connection | null;
  buffer: { s: number; data: string }[];
  identifiedAt: number;
  readyAt: number | null;
  guildsSentAt: number | null;
  guildCount: number;
  heartbeats: number;
  lastHeartbeatAt: number | null;
}

interface Connection {
  ws: WebSocket;
  session: Session | null;
  deflate: zlib.Deflate | null;
  chain: Promise<void>;
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

export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sessions = new Map<string, Session>();
  private readonly connections = new Set<Connection>();

  constructor(private readonly deps: GatewayDeps) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, query: URLSearchParams): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, query));
  }

  status(): ShardStatus[] {
    return [...this.sessions.values()].map((s) => ({
      sessionId: s.id,
      shard: s.shard,
      connected: s.conn !== null,
      seq: s.seq,
      guilds: s.guildCount,
      heartbeats: s.heartbeats,
      lastHeartbeatAt: s.lastHeartbeatAt,
      identifiedAt: s.identifiedAt,
      readyAt: s.readyAt,
      guildsSentAt: s.guildsSentAt,
    }));
  }

  /** The live session that owns a guild, most recent first (several bots may be connected). */
  sessionForGuild(guildId: string): Session | undefined {
    const candidates = [...this.sessions.values()]
      .filter((s) => s.readyAt !== null && shardForGuild(guildId, s.shard[1]) === s.shard[0])
      .sort((a, b) => Number(b.conn !== null) - Number(a.conn !== null) || b.identifiedAt - a.identifiedAt);
    return candidates[0];
  }

  /** Sends a dispatch to the shard that owns `guildId`; throws when no bot is connected for it. */
  dispatchToGuild(guildId: string, t: string, d: unknown): { shardId: number; sessionId: string } {
    const session = this.sessionForGuild(guildId);
    if (!session) {
      const shards = [...new Set([...this.sessions.values()].map((s) => s.shard[1]))];
      const count = shards[0] ?? 1;
      throw new NoGatewaySessionError(`No gateway session for guild ${guildId} (shard ${shardForGuild(guildId, count)} of ${count}); is the bot logged in?`);
    }
    this.dispatch(session, t, d);
    return { shardId: session.shard[0], sessionId: session.id };
  }

  /** Asks every connected shard (or one) to reconnect and resume (op 7), as Discord does. */
  requestReconnect(shardId?: number): number {
    let n = 0;
    for (const session of this.sessions.values()) {
      if (session.conn && (shardId === undefined || session.shard[0] === shardId)) {
        this.send(session.conn, { op: 7, d: null, s: null, t: null });
        n++;
      }
    }
    return n;
  }

  async close(): Promise<void> {
    for (const conn of this.connections) {
      conn.ws.terminate();
      conn.deflate?.close();
    }
    this.connections.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  // -------------------------------------------------------------------------------------------

  private onConnection(ws: WebSocket, query: URLSearchParams): void {
    const conn: Connection = { ws, session: null, deflate: null, chain: Promise.resolve() };
    this.connections.add(conn);
    this.emit({ type: 'connect', shard: null });
    ws.on('close', (code) => this.onClose(conn, code));
    ws.on('error', (error) => this.deps.logger.debug({ err: error.message }, 'gateway socket error'));
    const version = query.get('v');
    if (version !== '10' && version !== '9') {
      ws.close(CloseCode.InvalidAPIVersion, 'Invalid API version');
      return;
    }
    const encoding = query.get('encoding') ?? 'json';
    if (encoding !== 'json') {
      ws.close(CloseCode.DecodeError, 'Only json encoding is emulated');
      return;
    }
    const compress = query.get('compress');
    if (compress === 'zlib-stream') {
      conn.deflate = zlib.createDeflate({ chunkSize: 65_535 });
    } else if (compress !== null) {
      ws.close(CloseCode.DecodeError, `Unsupported compression ${compress}`);
      return;
    }
    ws.on('message', (data, isBinary) => this.onMessage(conn, data, isBinary));
    this.send(conn, { op: 10, d: { heartbeat_interval: this.deps.heartbeatIntervalMs, _trace: ['["discord-emulator",{"micros":0}]'] }, s: null, t: null });
  }

  private onClose(conn: Connection, code: number): void {
    this.connections.delete(conn);
    conn.deflate?.close();
    const session = conn.session;
    this.emit({ type: 'close', shard: session?.shard ?? null, sessionId: session?.id, code });
    if (!session || session.conn !== conn) return;
    session.conn = null;
    // A client that closes with 1000/1001 ends its session; other codes keep it resumable.
    if (code === 1000 || code === 1001) this.sessions.delete(session.id);
  }

  private onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    let payload: unknown;
    try {
      payload = JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
    } catch {
      conn.ws.close(CloseCode.DecodeError, 'Error while decoding payload.');
      return;
    }
    if (typeof payload !== 'object' || payload === null || typeof (payload as { op?: unknown }).op !== 'number') {
      conn.ws.close(CloseCode.DecodeError, 'Error while decoding payload.');
      return;
    }
    const { op, d } = payload as { op: number; d: unknown };
    switch (op) {
      case 1:
        this.onHeartbeat(conn);
        return;
      case 2:
        void this.onIdentify(conn, d);
        return;
      case 6:
        this.onResume(conn, d);
        return;
      case 3:
      case 4:
      case 8:
      case 31:
        if (!conn.session) conn.ws.close(CloseCode.NotAuthenticated, 'Not authenticated.');
        return;
      default:
        conn.ws.close(CloseCode.UnknownOpcode, 'Unknown opcode.');
    }
  }

  private onHeartbeat(conn: Connection): void {
    this.send(conn, { op: 11, d: null, s: null, t: null });
    const session = conn.session;
    if (session) {
      session.heartbeats++;
      session.lastHeartbeatAt = Date.now();
    }
    this.emit({ type: 'heartbeat', shard: session?.shard ?? null, sessionId: session?.id });
  }

  private tokenMatches(token: string): boolean {
    return token.replace(/^Bot\s+/i, '') === this.deps.botToken;
  }

  private async onIdentify(conn: Connection, d: unknown): Promise<void> {
    if (conn.session) {
      conn.ws.close(CloseCode.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    const parsed = IdentifySchema.safeParse(d);
    if (!parsed.success) {
      conn.ws.close(CloseCode.DecodeError, 'Error while decoding payload.');
      return;
    }
    const identify = parsed.data;
    if (!this.tokenMatches(identify.token)) {
      this.deps.logger.warn('gateway IDENTIFY with a wrong token');
      conn.ws.close(CloseCode.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    if (typeof identify.intents !== 'number' || !Number.isInteger(identify.intents) || identify.intents < 0) {
      conn.ws.close(CloseCode.InvalidIntents, 'Invalid intent(s).');
      return;
    }
    if (identify.intents & PRIVILEGED_INTENTS & ~this.deps.allowedPrivilegedIntents) {
      conn.ws.close(CloseCode.DisallowedIntents, 'Disallowed intent(s).');
      return;
    }
    const shard = identify.shard ?? [0, 1];
    if (
      !Array.isArray(shard) ||
      shard.length !== 2 ||
      !shard.every((n) => typeof n === 'number' && Number.isInteger(n)) ||
      shard[1] < 1 ||
      shard[0] < 0 ||
      shard[0] >= shard[1]
    ) {
      conn.ws.close(CloseCode.InvalidShard, 'Invalid shard.');
      return;
    }
    const [shardId, shardCount] = shard as [number, number];
    const guilds = this.deps.guilds().filter((g) => shardForGuild(g.id, shardCount) === shardId);
    if (guilds.length > this.deps.maxGuildsPerShard) {
      this.deps.logger.warn({ shard, guilds: guilds.length, max: this.deps.maxGuildsPerShard }, 'gateway: sharding required');
      conn.ws.close(CloseCode.ShardingRequired, 'Sharding is required.');
      return;
    }
    const session: Session = {
      id: newSessionId(),
      shard: [shardId, shardCount],
      intents: identify.intents,
      seq: 0,
      conn,
      buffer: [],
      identifiedAt: Date.now(),
      readyAt: null,
      guildsSentAt: null,
      guildCount: guilds.length,
      heartbeats: 0,
      lastHeartbeatAt: null,
    };
    conn.session = session;
    this.sessions.set(session.id, session);
    this.emit({ type: 'identify', shard: session.shard, sessionId: session.id });
    this.deps.logger.info({ shard: session.shard, guilds: guilds.length }, 'gateway: shard identified');
    this.dispatch(session, 'READY', {
      v: 10,
      user: this.deps.botUser,
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.deps.resumeUrl(),
      shard: session.shard,
      application: { id: this.deps.applicationId, flags: this.deps.applicationFlags },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: ['emulator'],
      user_settings: {},
      auth: {},
      _trace: ['["discord-emulator",{"micros":0}]'],
    });
    session.readyAt = Date.now();
    this.emit({ type: 'ready', shard: session.shard, sessionId: session.id });
    for (let i = 0; i < guilds.length; i++) {
      if (session.conn !== conn) return;
      this.dispatch(session, 'GUILD_CREATE', guildCreatePayload(guilds[i]!, this.deps.botUser), false);
      // Yield now and then so heartbeats and other shards are served while thousands of guilds go out.
      if (i % GUILD_BATCH === GUILD_BATCH - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    session.guildsSentAt = Date.now();
    this.emit({ type: 'guilds_sent', shard: session.shard, sessionId: session.id, detail: String(guilds.length) });
  }

  private onResume(conn: Connection, d: unknown): void {
    if (conn.session) {
      conn.ws.close(CloseCode.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    const parsed = ResumeSchema.safeParse(d);
    if (!parsed.success) {
      conn.ws.close(CloseCode.DecodeError, 'Error while decoding payload.');
      return;
    }
    if (!this.tokenMatches(parsed.data.token)) {
      conn.ws.close(CloseCode.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const session = this.sessions.get(parsed.data.session_id);
    const seq = parsed.data.seq ?? 0;
    const oldest = session?.buffer[0]?.s ?? (session ? session.seq + 1 : 0);
    if (!session || seq > session.seq || (seq < session.seq && seq + 1 < oldest)) {
      // Not resumable: the client must identify again.
      this.send(conn, { op: 9, d: false, s: null, t: null });
      return;
    }
    if (session.conn && session.conn !== conn) session.conn.ws.close(CloseCode.SessionTimedOut, 'Session resumed elsewhere.');
    session.conn = conn;
    conn.session = session;
    for (const entry of session.buffer) if (entry.s > seq) this.sendRaw(conn, entry.data);
    this.dispatch(session, 'RESUMED', null);
    this.emit({ type: 'resume', shard: session.shard, sessionId: session.id });
  }

  private dispatch(session: Session, t: string, d: unknown, buffered = true): void {
    session.seq++;
    const data = JSON.stringify({ op: 0, t, s: session.seq, d });
    if (buffered) {
      session.buffer.push({ s: session.seq, data });
      if (session.buffer.length > REPLAY_BUFFER) session.buffer.shift();
    }
    if (session.conn) this.sendRaw(session.conn, data);
    if (t !== 'GUILD_CREATE') this.emit({ type: 'dispatch', shard: session.shard, sessionId: session.id, detail: t });
  }

  private send(conn: Connection, payload: unknown): void {
    this.sendRaw(conn, JSON.stringify(payload));
  }

  private sendRaw(conn: Connection, data: string): void {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    const deflate = conn.deflate;
    if (!deflate) {
      conn.ws.send(data);
      return;
    }
    // One flushed zlib block per payload, in order: the client inflates until Z_SYNC_FLUSH.
    conn.chain = conn.chain.then(
      () =>
        new Promise<void>((resolve) => {
          deflate.write(data);
          deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
            const chunks: Buffer[] = [];
            let chunk: Buffer | null;
            while ((chunk = deflate.read() as Buffer | null) !== null) chunks.push(chunk);
            if (chunks.length > 0 && conn.ws.readyState === WebSocket.OPEN) conn.ws.send(Buffer.concat(chunks));
            resolve();
          });
        }),
    );
  }

  private emit(event: Omit<GatewayEvent, 'at'>): void {
    this.deps.events.emit('gateway', { at: Date.now(), ...event });
  }
}
