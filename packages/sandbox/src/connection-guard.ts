/**
 * Time limits and a per-address cap for the sandbox's connections.
 *
 * The front door accepts every socket and hands it to an HTTP(S) server with
 * `emit('connection')`; those servers never `listen()`, so Node never starts the periodic check
 * behind `server.headersTimeout` / `requestTimeout`, and a client sending a byte now and then
 * (slowloris) would hold its connection forever. This guard enforces the limits itself: every
 * connection has one deadline, moved as its requests progress, and a sweep closes the connections
 * past theirs (like Node's own check: no timer is created or cleared per request).
 *
 * - headers: from accepting the connection, its first request's headers (TLS handshake included)
 *   must be complete within `headersTimeoutMs`;
 * - request: that request, body included, must be received and answered within `requestTimeoutMs`
 *   of the same start;
 * - idle: after an answer, the next request's headers must be complete within `idleTimeoutMs`
 *   (also advertised as `Keep-Alive: timeout=…`), then the request time-out applies again.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  /** Connections open at once from one remote address; more are closed as soon as accepted. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 5_000,
  maxConnectionsPerAddress: 32,
});

/** `limits` with the defaults for what it leaves out (or leaves undefined). */
export function withDefaultLimits(limits: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const d = DEFAULT_CONNECTION_LIMITS;
  return {
    headersTimeoutMs: limits.headersTimeoutMs ?? d.headersTimeoutMs,
    requestTimeoutMs: limits.requestTimeoutMs ?? d.requestTimeoutMs,
    idleTimeoutMs: limits.idleTimeoutMs ?? d.idleTimeoutMs,
    maxConnectionsPerAddress: limits.maxConnectionsPerAddress ?? d.maxConnectionsPerAddress,
  };
}

interface Connection {
  raw: Socket;
  /** The socket the HTTP server reads: the TLS socket for HTTPS, else `raw`. */
  http?: Socket;
  /** When the current request may have started: accepted, or its previous exchange ended. */
  readySince: number;
  deadline: number;
  /** Requests whose headers arrived and whose exchange has not ended. */
  inFlight: number;
}

/** Sweeps often enough that a time-out is noticed at most a quarter of the shortest limit (or 1 s) late. */
function sweepInterval(limits: ConnectionLimits): number {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs, limits.idleTimeoutMs);
  return Math.min(1000, Math.max(10, Math.floor(shortest / 4)));
}

const peerKey = (socket: Socket): string => `${socket.remoteAddress ?? ''} ${socket.remotePort ?? ''}`;

export class ConnectionGuard {
  private readonly connections = new Set<Connection>();
  private readonly perAddress = new Map<string, number>();
  private readonly byRawSocket = new WeakMap<Socket, Connection>();
  private readonly byHttpSocket = new WeakMap<Socket, Connection>();
  /** Connections handed to TLS, until the handshake gives their TLS socket (same peer address and port). */
  private readonly awaitingHandshake = new Map<string, Connection>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly limits: ConnectionLimits) {
    this.sweeper = setInterval(() => this.sweep(), sweepInterval(limits)).unref();
  }

  /** A new connection: false (and closed) when its address already has the most it may. */
  admit(raw: Socket): boolean {
    const address = raw.remoteAddress ?? '';
    const open = this.perAddress.get(address) ?? 0;
    if (open >= this.limits.maxConnectionsPerAddress) {
      raw.destroy();
      return false;
    }
    this.perAddress.set(address, open + 1);
    const now = performance.now();
    const connection: Connection = { raw, readySince: now, deadline: now + this.limits.headersTimeoutMs, inFlight: 0 };
    this.connections.add(connection);
    this.byRawSocket.set(raw, connection);
    const key = peerKey(raw);
    raw.once('close', () => {
      this.connections.delete(connection);
      if (this.awaitingHandshake.get(key) === connection) this.awaitingHandshake.delete(key);
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
    });
    return true;
  }

  /** `raw` (admitted) goes to a plain HTTP server. */
  handToHttp(raw: Socket): void {
    const connection = this.byRawSocket.get(raw);
    if (connection) this.attach(connection, raw);
  }

  /** `raw` (admitted) goes to the TLS server; its TLS socket is recognized at the end of the handshake. */
  handToTls(raw: Socket): void {
    const connection = this.byRawSocket.get(raw);
    if (connection) this.awaitingHandshake.set(peerKey(raw), connection);
  }

  /** Follows the requests of `server`, an HTTP or HTTPS server the front door feeds. */
  watch(server: HttpServer | HttpsServer): void {
    // Only advertised (Keep-Alive: timeout=…): the sweep is what closes idle connections.
    server.keepAliveTimeout = this.limits.idleTimeoutMs;
    // Before the HTTP layer's own listener, so the socket is known before its first request.
    server.prependListener('secureConnection', (socket: TLSSocket) => {
      const key = peerKey(socket);
      const connection = this.awaitingHandshake.get(key);
      if (!connection) return;
      this.awaitingHandshake.delete(key);
      this.attach(connection, socket);
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.follow(req, res));
  }

  close(): void {
    clearInterval(this.sweeper);
    this.awaitingHandshake.clear();
  }

  private attach(connection: Connection, http: Socket): void {
    connection.http = http;
    this.byHttpSocket.set(http, connection);
  }

  /** One exchange: the request time-out while it lasts, the idle one after the last in flight. */
  private follow(req: IncomingMessage, res: ServerResponse): void {
    const connection = this.byHttpSocket.get(req.socket);
    if (!connection) return;
    connection.inFlight++;
    connection.deadline = connection.readySince + this.limits.requestTimeoutMs;
    const settle = (): void => {
      connection.inFlight--;
      if (connection.inFlight > 0) return;
      connection.readySince = performance.now();
      connection.deadline = connection.readySince + this.limits.idleTimeoutMs;
    };
    // A body nobody read is drained after the answer: then the exchange ends with its last byte.
    res.once('finish', () => {
      if (req.complete) settle();
      else req.once('end', settle);
    });
  }

  private sweep(): void {
    const now = performance.now();
    for (const connection of this.connections) {
      if (now < connection.deadline) continue;
      this.connections.delete(connection);
      connection.http?.destroy();
      connection.raw.destroy();
    }
  }
}
