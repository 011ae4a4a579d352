/**
 * What every HTTP listener feedbot owns (the ops listener, POST /interactions) does the same way:
 * a request target that no URL parser accepts is a 400 at once, never an exception; a handler
 * that throws is a 500 for that request only.
 *
 * Node's parser accepts targets such as `//x:99999/` or `http://[` and hands them to the
 * handler; `new URL()` throws on them. Thrown from the 'request' event, that is an uncaught
 * exception: it killed the shard manager, and under `npm start`'s handler it left the socket
 * open until Node's 408 with an error line and a stack per request, an easy way to flood logs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';

/** The handler of one listener, given the path of a target that parsed. */
export type PathHandler = (req: IncomingMessage, res: ServerResponse, path: string) => void;

export interface ListenerOptions {
  logger: Logger;
  /** Whole request, headers included (Node's requestTimeout). */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs?: number;
}

/** The path of the request's target, or undefined when it does not parse as a URL. */
export function requestPath(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://listener.invalid').pathname;
  } catch {
    return undefined;
  }
}

export function createListener(handler: PathHandler, opts: ListenerOptions): Server {
  const { logger } = opts;
  const server = createServer((req, res) => {
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
  server.requestTimeout = opts.requestTimeoutMs;
  server.headersTimeout = opts.headersTimeoutMs;
  if (opts.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  return server;
}

function sendPlain(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
  res.end(body);
}
