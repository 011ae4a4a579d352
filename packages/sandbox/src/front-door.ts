/**
 * One TCP port, two protocols: the first byte of a connection tells a TLS ClientHello (0x16) from
 * anything else. TLS goes to the HTTPS server; plain HTTP gets a JSON refusal (403
 * `https_required`, with the rate-limit headers like every other response) and the connection is
 * closed. Nothing is ever served over plain HTTP. Every connection is admitted and timed by the
 * connection guard (connection-guard.ts): neither HTTP server listens itself, so Node's own
 * header and request time-outs never run on them.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { ConnectionGuard, type ConnectionLimits } from './connection-guard.js';
import { errorBody } from './errors.js';
import { ipBucket, rateLimitHeaders, type FixedWindowLimiter } from './rate-limit.js';
import { answerAndClose, rawJsonResponse } from './raw-response.js';

const TLS_HANDSHAKE = 0x16;

export interface FrontDoor {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(): Promise<void>;
}

export interface FrontDoorDeps {
  tlsServer: HttpsServer;
  limiter: FixedWindowLimiter;
  /** Where the client should have gone, for the refusal message. */
  baseUrl: () => string;
  limits: ConnectionLimits;
}

export function createFrontDoor(deps: FrontDoorDeps): FrontDoor {
  const sockets = new Set<Socket>();
  const guard = new ConnectionGuard(deps.limits);
  guard.watch(deps.tlsServer);

  const refuse = (req: IncomingMessage, res: ServerResponse): void => {
    const rate = deps.limiter.hit(ipBucket(req.socket.remoteAddress));
    const path = (req.url ?? '/').split('?')[0]?.slice(0, 100) ?? '/';
    const body = JSON.stringify(
      errorBody('https_required', `Esta API solo acepta HTTPS: usa ${deps.baseUrl()}${path.startsWith('/') ? path : '/'}`),
    );
    res.writeHead(403, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
      ...rateLimitHeaders(rate),
    });
    res.end(body);
    // The request body (if any) is never read: it may carry a key sent in the clear.
    req.resume();
  };

  const plain = createHttpServer(refuse);
  plain.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const rate = deps.limiter.hit(ipBucket(socket.remoteAddress));
    answerAndClose(socket, rawJsonResponse(403, 'Forbidden', errorBody('https_required', 'Esta API solo acepta HTTPS'), rateLimitHeaders(rate)));
  });

  guard.watch(plain);

  const front = createNetServer((socket) => {
    socket.on('error', () => socket.destroy());
    if (!guard.admit(socket)) return;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      const tls = chunk[0] === TLS_HANDSHAKE;
      if (tls) guard.handToTls(socket);
      else guard.handToHttp(socket);
      (tls ? deps.tlsServer : plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        front.once('error', reject);
        front.listen(port, host, () => {
          front.off('error', reject);
          resolve(front.address() as AddressInfo);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        guard.close();
        front.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      }),
  };
}
