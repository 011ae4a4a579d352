/**
 * The emulator's one HTTP server: checks who is calling (request-guard.ts), then hands `/api` to
 * the REST endpoint, `/_emulator` to the control API and the `/gateway` WebSocket upgrade to the
 * gateway.
 *
 * Any bytes get a status, never a crash: Node's parser accepts request targets such as
 * `//x:99999/` or `http://[` that `new URL()` throws on, so a target that does not parse is a 400
 * at once (a request and a handshake alike), and a handler that throws is a 500 for that request.
 * Unchecked, the first would be an unhandled rejection (no answer at all) and, from the 'upgrade'
 * listener, an uncaught exception.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Gateway } from './gateway/gateway.js';
import { sendJson, splitPath } from './http.js';
import type { Logger } from './log.js';
import { refuseHandshake, type Refusal, type RequestGuard } from './request-guard.js';
import type { RestEndpoint } from './rest-endpoint.js';
import type { RestFaults } from './rest-faults.js';

export type PathHandler = (req: IncomingMessage, res: ServerResponse, segments: string[], url: URL) => Promise<void>;

export interface ServerParts {
  guard: RequestGuard;
  rest: RestEndpoint;
  control: PathHandler;
  gateway: Gateway;
  logger: Logger;
  /** Faults a test switched on (rest-faults.ts). */
  faults?: RestFaults;
}

export function createEmulatorServer(parts: ServerParts): Server {
  const { guard, gateway } = parts;
  const server = createServer((req, res) => {
    onRequest(parts, req, res).catch((error: unknown) => failed(parts.logger, res, error));
  });
  server.on('upgrade', (req, socket, head) => {
    try {
      const refused = guard.checkSender(req, { handshake: true });
      if (refused) return endHandshake(socket, refused);
      const url = requestUrl(req);
      if (url === undefined) {
        parts.logger.debug({ method: req.method }, 'handshake target not understood: 400');
        return endHandshake(socket, BAD_TARGET);
      }
      if (url.pathname.replace(/\/+$/, '') !== '/gateway') {
        closeOnceAnswered(socket);
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
        return;
      }
      gateway.handleUpgrade(req, socket, head, url.searchParams);
    } catch (error) {
      parts.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'emulator handshake failed');
      endHandshake(socket, { status: 500, reason: 'Internal emulator error' });
    }
  });
  return server;
}

const BAD_TARGET: Refusal = { status: 400, reason: 'bad request target' };

/**
 * A handshake's socket is the emulator's alone (Node no longer tracks it as an HTTP connection),
 * so ended without more it stayed open, half-closed, until the client closed its side, and
 * server.close() waited for it: one such client held the emulator's close for as long as it
 * liked. Destroy it once the answer is written (as ws does for the handshakes it refuses).
 */
function closeOnceAnswered(socket: Duplex): void {
  socket.once('finish', () => socket.destroy());
}

function endHandshake(socket: Duplex, refusal: Refusal): void {
  closeOnceAnswered(socket);
  refuseHandshake(socket, refusal);
}

/** The request's target as a URL, or undefined when it does not parse as one. */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://emulator.invalid');
  } catch {
    return undefined;
  }
}

function failed(logger: Logger, res: ServerResponse, error: unknown): void {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'emulator request failed');
  if (!res.headersSent) sendJson(res, 500, { message: 'Internal emulator error', code: 0 });
  else res.end();
}

async function onRequest(parts: ServerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refused = parts.guard.checkSender(req);
  if (refused) return sendJson(res, refused.status, { error: refused.reason });
  const url = requestUrl(req);
  if (url === undefined) {
    parts.logger.debug({ method: req.method }, 'request target not understood: 400');
    return sendJson(res, 400, { error: BAD_TARGET.reason }, { connection: 'close' });
  }
  const segments = splitPath(url.pathname);
  try {
    if (segments[0] === 'api') {
      const versioned = /^v\d+$/.test(segments[1] ?? '');
      const fault = parts.faults?.pick(segments.slice(versioned ? 2 : 1));
      if (fault) return sendJson(res, fault.status, fault.body, fault.headers);
      await parts.rest.handle(req, res, segments.slice(versioned ? 2 : 1), url);
      return;
    }
    if (segments[0] === '_emulator') {
      await parts.control(req, res, segments.slice(1), url);
      return;
    }
    sendJson(res, 404, { message: '404: Not Found', code: 0 });
  } catch (error) {
    failed(parts.logger, res, error);
  }
}
