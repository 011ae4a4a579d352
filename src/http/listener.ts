/**
 * What every HTTP listener feedbot owns (the ops listener, POST /interactions) does the same way:
 * a request target that no URL parser accepts is a 400 at once, never an exception; a handler
 * that throws is a 500 for that request only; the configured time-outs hold to the second; and
 * a close drains for a bounded time, then cuts what is left.
 *
 * Node's parser accepts targets such as `//x:99999/` or `http://[` and hands them to the
 * handler; `new URL()` throws on them. Thrown from the 'request' event, that is an uncaught
 * exception: it killed the shard manager, and under `npm start`'s handler it left the socket
 * open until Node's 408 with an error line and a stack per request, an easy way to flood logs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { Logger } from '../logger.js';

/**
 * How often Node looks for requests past headersTimeout / requestTimeout. Its default (30 s)
 * let a client that sends one header byte every 2 s hold a socket for ~29 s against a 5 s
 * headersTimeout; the check walks only the open connections, so once a second costs nothing.
 */
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** The handler of one listener, given the path of a target that parsed. */
export type PathHandler = (req: IncomingMessage, res: ServerResponse, path: string) => void;

interface ListenerOptions {
  logger: Logger;
  /** Whole request, headers included (Node's requestTimeout). */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs?: number;
}

/** The path of the request's target, or undefined when it does not parse as a URL. */
function requestPath(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://listener.invalid').pathname;
  } catch {
    return undefined;
  }
}

/** Listeners being drained (closeDraining): every answer from then on ends its connection. */
const draining = new WeakSet<Server>();
/** Each listener's answers not sent yet, so a drain that starts can still add `Connection: close`. */
const unanswered = new WeakMap<Server, Set<ServerResponse>>();

export function createListener(handler: PathHandler, opts: ListenerOptions): Server {
  const { logger } = opts;
  const timeouts = {
    connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    requestTimeout: opts.requestTimeoutMs,
    headersTimeout: opts.headersTimeoutMs,
    ...(opts.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: opts.keepAliveTimeoutMs }),
  };
  const pending = new Set<ServerResponse>();
  const server = createServer(timeouts, (req, res) => {
    if (draining.has(server)) res.setHeader('connection', 'close');
    pending.add(res);
    res.once('close', () => pending.delete(res));
    const path = requestPath(req);
    if (path === undefined) {
      logger.debug({ method: req.method }, 'request target not understood: 400');
      return sendPlain(res, 400, 'bad request target', { connection: 'close' });
    }
    try {
      handler(req, res, path);
    } catch (error) {
      logger.error({ err: error, path }, 'request handler failed');
      if (!res.headersSent && !res.destroyed) sendPlain(res, 500, 'internal error', { connection: 'close' });
      else res.destroy();
    }
  });
  unanswered.set(server, pending);
  return server;
}

export interface DrainOptions {
  /** How long the requests in flight may finish; then every connection left is closed. */
  drainMs: number;
  /**
   * Idle keep-alive connections: `close` (the default) closes them at once. `leave` lets the
   * client close them, or send one more request on them (answered, with `Connection: close`),
   * until the drain ends. Behind a proxy, closing an idle connection races with a request the
   * proxy is sending on it at that moment, and a proxy does not retry a POST it has sent (nginx
   * answers 502); nginx closes its idle upstream connections after its own `keepalive_timeout`.
   */
  idle?: 'close' | 'leave';
}

/**
 * Stops accepting (a new connection is refused from now on), lets the requests in flight finish
 * for at most `drainMs`, then closes every connection left; resolves once the server is closed.
 * Every answer sent from now on says `Connection: close` and ends its connection, so a client
 * with a keep-alive connection (a load balancer) learns it may not send another request on it.
 * http.Server's close() is not used to stop listening: it also closes every idle keep-alive
 * connection at once (the race `idle: 'leave'` avoids) and stops Node's time-out checks, which
 * let a client dribbling a body (a byte a second) hold the drain, and the process, for as long
 * as it liked; the cut at `drainMs` bounds that in both modes.
 */
export function closeDraining(server: Server, opts: DrainOptions): Promise<void> {
  draining.add(server);
  for (const res of unanswered.get(server) ?? []) if (!res.headersSent) res.setHeader('connection', 'close');
  return new Promise((resolve) => {
    // A keep-alive connection that finishes a request begun before the drain becomes idle: close it too.
    const idle = opts.idle === 'leave' ? undefined : setInterval(() => server.closeIdleConnections(), 250);
    const cut = setTimeout(() => server.closeAllConnections(), opts.drainMs);
    // net.Server's close: the listening socket only; calls back once the last connection ended.
    NetServer.prototype.close.call(server, () => {
      clearInterval(idle);
      clearTimeout(cut);
      // http.Server's own close, now that nothing is left, for what it adds: the end of Node's
      // time-out checks (it emits a second 'close', listened to by nobody).
      server.close();
      resolve();
    });
    if (opts.idle !== 'leave') server.closeIdleConnections();
  });
}

function sendPlain(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
  res.end(body);
}
