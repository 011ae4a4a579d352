/**
 * The emulator's one HTTP server: checks who is calling (request-guard.ts), then hands `/api` to
 * the REST endpoint, `/_emulator` to the control API and the `/gateway` WebSocket upgrade to the
 * gateway.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Gateway } from './gateway/gateway.js';
import { sendJson, splitPath } from './http.js';
import type { Logger } from './log.js';
import { refuseHandshake, type RequestGuard } from './request-guard.js';
import type { RestEndpoint } from './rest-endpoint.js';

export type PathHandler = (req: IncomingMessage, res: ServerResponse, segments: string[], url: URL) => Promise<void>;

export interface ServerParts {
  guard: RequestGuard;
  rest: RestEndpoint;
  control: PathHandler;
  gateway: Gateway;
  logger: Logger;
}

export function createEmulatorServer(parts: ServerParts): Server {
  const { guard, gateway } = parts;
  const server = createServer((req, res) => void onRequest(parts, req, res));
  server.on('upgrade', (req, socket, head) => {
    const refused = guard.checkSender(req, { handshake: true });
    if (refused) return refuseHandshake(socket, refused);
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    if (url.pathname.replace(/\/+$/, '') !== '/gateway') {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    gateway.handleUpgrade(req, socket, head, url.searchParams);
  });
  return server;
}

async function onRequest(parts: ServerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refused = parts.guard.checkSender(req);
  if (refused) return sendJson(res, refused.status, { error: refused.reason });
  const url = new URL(req.url ?? '/', 'http://emulator.invalid');
  const segments = splitPath(url.pathname);
  try {
    if (segments[0] === 'api') {
      const versioned = /^v\d+$/.test(segments[1] ?? '');
      await parts.rest.handle(req, res, segments.slice(versioned ? 2 : 1), url);
      return;
    }
    if (segments[0] === '_emulator') {
      await parts.control(req, res, segments.slice(1), url);
      return;
    }
    sendJson(res, 404, { message: '404: Not Found', code: 0 });
  } catch (error) {
    parts.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'emulator request failed');
    if (!res.headersSent) sendJson(res, 500, { message: 'Internal emulator error', code: 0 });
    else res.end();
  }
}
