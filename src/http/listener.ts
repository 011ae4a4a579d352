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

export function createListener(handler: PathHandler, opts: ListenerOptions): Server {
  const { logger } = opts;
  const timeouts = {
    connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    requestTimeout: opts.requestTimeoutMs,
    headersTimeout: opts.headersTimeoutMs,
    ...(opts.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: opts.keepAliveTimeoutMs }),
  };
  const server = createServer(timeouts, (req, res) => {
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
  return server;
}

/**
 * Stops accepting, closes idle keep-alive connections, lets the requests in flight finish for at
 * most `drainMs`, then closes every connection left; resolves once the server is closed.
 * server.close() also stops Node's connection checks, so without this bound a client dribbling
 * a body (a byte a second) held the drain, and the process, for as long as it liked.
 */
export function closeDraining(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    // A keep-alive connection that finishes its request while draining becomes idle: close it too.
    const idle = setInterval(() => server.closeIdleConnections(), 250);
    const cut = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function sendPlain(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
  res.end(body);
}
