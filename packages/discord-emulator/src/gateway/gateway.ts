/**
 * The JSON gateway, as @discordjs/ws 1.x speaks it: HELLO → IDENTIFY → READY + GUILD_CREATE per
 * guild of the shard, heartbeats answered with op 11, RESUME with replay, and dispatches
 * (INTERACTION_CREATE, guild events) sent to every session of the shard that owns the guild (as
 * on Discord, several sessions may hold one shard, or shards of different counts). IDENTIFY is
 * limited as on Discord (identify-limit.ts); the emulator can drop a shard's connection or
 * invalidate its session.
 *
 * Optional `compress=zlib-stream` is supported (discord.js asks for it only when zlib-sync is
 * installed). Encoding must be json; ETF is refused like an unsupported version.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { z } from 'zod';
import type { GatewayEvent } from '../events.js';
import { guildCreatePayload } from '../guilds.js';
import { sessionId as newSessionId, shardForGuild } from '../snowflake.js';
import type { DispatchTarget } from '../types.js';
import { decodeFrame, drained, openCompression, send, sendRaw } from './connection.js';
import { refusalMessage, type IdentifyRefusal } from './identify-limit.js';
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
  type Connection,
  type GatewayDeps,
  type Session,
  type ShardStatus,
} from './protocol.js';
import { SessionTable } from './sessions.js';

export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sessions = new SessionTable();
  private readonly connections = new Set<Connection>();

  constructor(private readonly deps: GatewayDeps) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, query: URLSearchParams): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, query));
  }

  status(): ShardStatus[] {
    return this.sessions.status();
  }

  /**
   * Sends a dispatch (INTERACTION_CREATE) to every ready session that holds `guildId`, as Discord
   * does: several sessions may have identified for its shard — the same `[shard_id, num_shards]`
   * during a blue/green deploy, another `num_shards` during a resharding — and none is kicked; each
   * gets the event (one waiting for a RESUME on replay). Throws when no session holds the guild.
   * `shardId` is the shard of the newest connected session among them.
   */
  dispatchToGuild(guildId: string, t: string, d: unknown): { shardId: number; sessions: DispatchTarget[] } {
    const preferred = this.sessions.forGuild(guildId);
    if (!preferred) {
      const count = this.sessions.anyShardCount();
      throw new NoGatewaySessionError(`No gateway session for guild ${guildId} (shard ${shardForGuild(guildId, count)} of ${count}); is the bot logged in?`);
    }
    const sessions = this.sessions.allForGuild(guildId);
    for (const session of sessions) this.dispatch(session, t, d);
    return { shardId: preferred.shard[0], sessions: sessions.map((s) => ({ sessionId: s.id, shard: [...s.shard] })) };
  }

  /**
   * Sends a guild event (CHANNEL_DELETE, GUILD_ROLE_UPDATE, …) to every session that holds the
   * guild and subscribed to `intent` (null: sent whatever the intents); sessions waiting for a
   * RESUME get it on replay. Nobody connected is not an error: the change happened anyway, and a
   * later IDENTIFY gets it in GUILD_CREATE. Returns the shards it went to.
   */
  dispatchGuildEvent(guildId: string, t: string, d: unknown, intent: number | null): number[] {
    const sessions = this.sessions.allForGuild(guildId).filter((s) => intent === null || (s.intents & intent) !== 0);
    for (const session of sessions) this.dispatch(session, t, d);
    return sessions.map((s) => s.shard[0]);
  }

  /** Asks every connected shard (or one) to reconnect and resume (op 7), as Discord does. */
  requestReconnect(shardId?: number): number {
    const live = this.sessions.ofShard(shardId).filter((s) => s.conn);
    for (const session of live) send(session.conn!, { op: 7, d: null, s: null, t: null });
    return live.length;
  }

  /**
   * Cuts the connection of every connected shard (or one) and keeps its session, as a network
   * drop does: the client reconnects and RESUMEs, and what was dispatched meanwhile is replayed.
   * Without `code` the socket is destroyed (the client sees 1006); with one it is closed with it.
   */
  dropConnection(shardId?: number, code?: number): number {
    const live = this.sessions.ofShard(shardId).filter((s) => s.conn);
    for (const session of live) {
      const conn = session.conn!;
      conn.dropped = true;
      if (code === undefined) conn.ws.terminate();
      else conn.ws.close(code, 'Connection dropped by the emulator.');
    }
    return live.length;
  }

  /**
   * Sends op 9 Invalid Session to the sessions of every shard (or one). `resumable: false` ends
   * them, those waiting for a RESUME too (the client must IDENTIFY again, which counts against the
   * limits); `true` keeps the connected ones, and their clients RESUME. Returns how many.
   */
  invalidateSession(shardId?: number, resumable = false): number {
    const sessions = this.sessions.ofShard(shardId).filter((s) => !resumable || s.conn);
    for (const session of sessions) {
      const conn = session.conn;
      if (!resumable) this.sessions.end(session);
      // Detached: the client RESUMEs or IDENTIFYs next, on this socket or on a new one.
      if (conn) conn.session = session.conn = null;
      this.invalidSession(conn, resumable, 'invalidated', session);
    }
    return sessions.length;
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
    const conn: Connection = { ws, session: null, deflate: null, chain: Promise.resolve(), dropped: false };
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
    this.emit({ type: 'close', shard: session?.shard ?? null, sessionId: session?.id, code, ...(conn.dropped ? { detail: 'dropped' } : {}) });
    if (!session || session.conn !== conn) return;
    session.conn = null;
    // A client that closes with 1000/1001 ends its session; other codes keep it resumable.
    if (!conn.dropped && (code === 1000 || code === 1001)) this.sessions.end(session);
  }

  private onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    const frame = decodeFrame(conn, data, isBinary);
    if (!frame) return;
    switch (frame.op) {
      case 1:
        this.onHeartbeat(conn);
        return;
      case 2:
        this.onIdentify(conn, frame.d);
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

  private onIdentify(conn: Connection, d: unknown): void {
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
    const guilds = this.deps.guildsOfShard(shard[0], shard[1]);
    if (guilds.length > this.deps.maxGuildsPerShard) {
      this.deps.logger.warn({ shard, guilds: guilds.length, max: this.deps.maxGuildsPerShard }, 'gateway: sharding required');
      conn.ws.close(CloseCode.ShardingRequired, 'Sharding is required.');
      return;
    }
    // Only an IDENTIFY that would start a session takes a slot; the connection stays open for another.
    const refusal = this.deps.limiter.take(shard[0]);
    if (refusal) return this.refuseIdentify(conn, shard, refusal);
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
      guilds,
      guildSeqs: [],
      sendingGuilds: false,
      heartbeats: 0,
      lastHeartbeatAt: null,
    };
    conn.session = session;
    this.sessions.add(session);
    this.emit({ type: 'identify', shard, sessionId: session.id });
    this.deps.logger.info({ shard, guilds: guilds.length }, 'gateway: shard identified');
    this.dispatch(session, 'READY', readyPayload(this.deps, session, guilds));
    session.readyAt = Date.now();
    this.emit({ type: 'ready', shard, sessionId: session.id });
    void this.sendGuilds(session);
  }

  /** Discord answers an IDENTIFY over a limit with op 9 (d: false); discord.js waits and identifies again. */
  private refuseIdentify(conn: Connection, shard: [number, number], refusal: IdentifyRefusal): void {
    const message = refusalMessage(shard[0], refusal);
    this.deps.violation({ kind: refusal.reason, status: 0, code: 0, message, route: '/gateway', body: { op: 2, shard, ...refusal } });
    this.invalidSession(conn, false, refusal.reason, null, shard);
  }

  /** GUILD_CREATE for each guild not yet sent, while the session's connection is open. */
  private async sendGuilds(session: Session): Promise<void> {
    if (session.sendingGuilds) return;
    session.sendingGuilds = true;
    try {
      const sent = session.guildSeqs;
      while (sent.length < session.guilds.length) {
        const conn = session.conn;
        // Dropped: a RESUME goes on from the first guild the client did not get.
        if (!conn || conn.ws.readyState !== WebSocket.OPEN) return;
        sent.push(this.dispatch(session, 'GUILD_CREATE', guildCreatePayload(session.guilds[sent.length]!, this.deps.botUser), false));
        // Now and then: let heartbeats and other shards through, and let a slow client catch up.
        if (sent.length % GUILD_BATCH === 0) await Promise.all([drained(conn), new Promise((resolve) => setImmediate(resolve))]);
      }
    } finally {
      session.sendingGuilds = false;
    }
    session.guildsSentAt = Date.now();
    this.emit({ type: 'guilds_sent', shard: session.shard, sessionId: session.id, detail: String(session.guilds.length) });
  }

  private onResume(conn: Connection, d: unknown): void {
    const resume = this.authenticate(conn, ResumeSchema, d);
    if (!resume) return;
    const session = this.sessions.get(resume.session_id);
    const seq = resume.seq ?? 0;
    const oldest = session?.buffer[0]?.s ?? (session ? session.seq + 1 : 0);
    if (!session || seq > session.seq || (seq < session.seq && seq + 1 < oldest)) {
      // Not resumable: the client must identify again.
      this.invalidSession(conn, false, 'not_resumable', session ?? null);
      return;
    }
    if (session.conn && session.conn !== conn) session.conn.ws.close(CloseCode.SessionTimedOut, 'Session resumed elsewhere.');
    session.conn = conn;
    conn.session = session;
    for (const entry of session.buffer) if (entry.s > seq) sendRaw(conn, entry.data);
    this.dispatch(session, 'RESUMED', null);
    this.emit({ type: 'resume', shard: session.shard, sessionId: session.id });
    const unseen = session.guildSeqs.findIndex((s) => s > seq);
    if (unseen >= 0) {
      session.guildSeqs.length = unseen;
      session.guildsSentAt = null;
    }
    if (session.guildSeqs.length < session.guilds.length) void this.sendGuilds(session);
  }

  private invalidSession(conn: Connection | null, resumable: boolean, reason: string, session: Session | null, shard = session?.shard ?? null): void {
    if (conn) send(conn, { op: 9, d: resumable, s: null, t: null });
    this.emit({ type: 'invalid_session', shard, sessionId: session?.id, detail: reason });
  }

  /** Sends (or keeps for a RESUME) one dispatch; returns its sequence number. */
  private dispatch(session: Session, t: string, d: unknown, buffered = true): number {
    session.seq++;
    const data = JSON.stringify({ op: 0, t, s: session.seq, d });
    if (buffered) {
      session.buffer.push({ s: session.seq, data });
      if (session.buffer.length > REPLAY_BUFFER) session.buffer.shift();
    }
    if (session.conn) sendRaw(session.conn, data);
    if (t !== 'GUILD_CREATE') this.emit({ type: 'dispatch', shard: session.shard, sessionId: session.id, detail: t });
    return session.seq;
  }

  private emit(event: Omit<GatewayEvent, 'at'>): void {
    this.deps.events.emit('gateway', { at: Date.now(), ...event });
  }
}
