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
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { z } from 'zod';
import type { GatewayEvent } from '../events.js';
import { guildCreatePayload } from '../guilds.js';
import { sessionId as newSessionId, shardForGuild } from '../snowflake.js';
import { decodeFrame, openCompression, send, sendRaw } from './connection.js';
import {
  CloseCode,
  GUILD_BATCH,
  IdentifySchema,
  NoGatewaySessionError,
  PRIVILEGED_INTENTS,
  REPLAY_BUFFER,
  ResumeSchema,
  parseShard,
  readyPayload,
  shardStatus,
  type Connection,
  type GatewayDeps,
  type Session,
  type ShardStatus,
} from './protocol.js';

export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sessions = new Map<string, Session>();
  private readonly connections = new Set<Connection>();

  constructor(private readonly deps: GatewayDeps) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, query: URLSearchParams): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, query));
  }

  status(): ShardStatus[] {
    return [...this.sessions.values()].map(shardStatus);
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
        send(session.conn, { op: 7, d: null, s: null, t: null });
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
    if ((query.get('encoding') ?? 'json') !== 'json') {
      ws.close(CloseCode.DecodeError, 'Only json encoding is emulated');
      return;
    }
    if (!openCompression(conn, query.get('compress'))) return;
    ws.on('message', (data, isBinary) => this.onMessage(conn, data, isBinary));
    send(conn, { op: 10, d: { heartbeat_interval: this.deps.heartbeatIntervalMs, _trace: ['["discord-emulator",{"micros":0}]'] }, s: null, t: null });
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
    const frame = decodeFrame(conn, data, isBinary);
    if (!frame) return;
    switch (frame.op) {
      case 1:
        this.onHeartbeat(conn);
        return;
      case 2:
        void this.onIdentify(conn, frame.d);
        return;
      case 6:
        this.onResume(conn, frame.d);
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
    send(conn, { op: 11, d: null, s: null, t: null });
    const session = conn.session;
    if (session) {
      session.heartbeats++;
      session.lastHeartbeatAt = Date.now();
    }
    this.emit({ type: 'heartbeat', shard: session?.shard ?? null, sessionId: session?.id });
  }

  /**
   * What IDENTIFY and RESUME both check first: not yet authenticated, a well-formed payload, the
   * bot's token. Closes the connection and returns undefined otherwise.
   */
  private authenticate<T extends { token: string }>(conn: Connection, schema: z.ZodType<T>, d: unknown): T | undefined {
    if (conn.session) {
      conn.ws.close(CloseCode.AlreadyAuthenticated, 'Already authenticated.');
      return undefined;
    }
    const parsed = schema.safeParse(d);
    if (!parsed.success) {
      conn.ws.close(CloseCode.DecodeError, 'Error while decoding payload.');
      return undefined;
    }
    if (parsed.data.token.replace(/^Bot\s+/i, '') !== this.deps.botToken) {
      this.deps.logger.warn('gateway: a wrong token was presented');
      conn.ws.close(CloseCode.AuthenticationFailed, 'Authentication failed.');
      return undefined;
    }
    return parsed.data;
  }

  private async onIdentify(conn: Connection, d: unknown): Promise<void> {
    const identify = this.authenticate(conn, IdentifySchema, d);
    if (!identify) return;
    const intents = identify.intents;
    if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0) {
      conn.ws.close(CloseCode.InvalidIntents, 'Invalid intent(s).');
      return;
    }
    if (intents & PRIVILEGED_INTENTS & ~this.deps.allowedPrivilegedIntents) {
      conn.ws.close(CloseCode.DisallowedIntents, 'Disallowed intent(s).');
      return;
    }
    const shard = parseShard(identify.shard);
    if (!shard) {
      conn.ws.close(CloseCode.InvalidShard, 'Invalid shard.');
      return;
    }
    const guilds = this.deps.guilds().filter((g) => shardForGuild(g.id, shard[1]) === shard[0]);
    if (guilds.length > this.deps.maxGuildsPerShard) {
      this.deps.logger.warn({ shard, guilds: guilds.length, max: this.deps.maxGuildsPerShard }, 'gateway: sharding required');
      conn.ws.close(CloseCode.ShardingRequired, 'Sharding is required.');
      return;
    }
    const session: Session = {
      id: newSessionId(),
      shard,
      intents,
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
    this.emit({ type: 'identify', shard, sessionId: session.id });
    this.deps.logger.info({ shard, guilds: guilds.length }, 'gateway: shard identified');
    this.dispatch(session, 'READY', readyPayload(this.deps, session, guilds));
    session.readyAt = Date.now();
    this.emit({ type: 'ready', shard, sessionId: session.id });
    for (let i = 0; i < guilds.length; i++) {
      if (session.conn !== conn) return;
      this.dispatch(session, 'GUILD_CREATE', guildCreatePayload(guilds[i]!, this.deps.botUser), false);
      // Yield now and then so heartbeats and other shards are served while thousands of guilds go out.
      if (i % GUILD_BATCH === GUILD_BATCH - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    session.guildsSentAt = Date.now();
    this.emit({ type: 'guilds_sent', shard, sessionId: session.id, detail: String(guilds.length) });
  }

  private onResume(conn: Connection, d: unknown): void {
    const resume = this.authenticate(conn, ResumeSchema, d);
    if (!resume) return;
    const session = this.sessions.get(resume.session_id);
    const seq = resume.seq ?? 0;
    const oldest = session?.buffer[0]?.s ?? (session ? session.seq + 1 : 0);
    if (!session || seq > session.seq || (seq < session.seq && seq + 1 < oldest)) {
      // Not resumable: the client must identify again.
      send(conn, { op: 9, d: false, s: null, t: null });
      return;
    }
    if (session.conn && session.conn !== conn) session.conn.ws.close(CloseCode.SessionTimedOut, 'Session resumed elsewhere.');
    session.conn = conn;
    conn.session = session;
    for (const entry of session.buffer) if (entry.s > seq) sendRaw(conn, entry.data);
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
    if (session.conn) sendRaw(session.conn, data);
    if (t !== 'GUILD_CREATE') this.emit({ type: 'dispatch', shard: session.shard, sessionId: session.id, detail: t });
  }

  private emit(event: Omit<GatewayEvent, 'at'>): void {
    this.deps.events.emit('gateway', { at: Date.now(), ...event });
  }
}
