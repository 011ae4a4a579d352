/**
 * The web playground's HTTP server (loopback only): the page, the renderer's modules, the JSON
 * API over the Discord emulator, its event stream, the sandbox media proxy and the attachments.
 *
 * A request target that does not parse as a URL (Node's parser accepts `//x:99999/` and
 * `http://[`, `new URL()` throws on them) is the client's mistake: 400 at once and one debug
 * line, not a 500 with an error line per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './log.js';
import { createApi, streamEvents, type EventsStream, type PlaygroundDeps } from './api.js';
import { checkVendorPackages, serveIndex, serveStatic, serveVendor } from './assets.js';
import { serveAttachment } from './files.js';
import { sendText } from './http.js';
import { createSandboxProxy } from './sandbox-proxy.js';

export interface PlaygroundOptions extends PlaygroundDeps {
  /** 0 picks a free port. */
  port: number;
  /** When `port` is taken, listen on a free one instead of failing. */
  fallbackToFreePort?: boolean;
  sandboxCaPem: string;
  logger: Logger;
}

export interface RunningPlayground {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

/** The request's target as a URL, or undefined when it does not parse as one. */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://playground.invalid');
  } catch {
    return undefined;
  }
}

export async function startPlayground(opts: PlaygroundOptions): Promise<RunningPlayground> {
  checkVendorPackages();
  const api = createApi(opts);
  const proxy = createSandboxProxy({ origin: opts.sandboxOrigin, caPem: opts.sandboxCaPem });
  const streams = new Set<EventsStream>();
  let port = 0;

  // A page on another site must not drive the demo through DNS rebinding: only our own Host.
  const ownHost = (host: string | undefined) => host === `${HOST}:${port}` || host === `localhost:${port}`;

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!ownHost(req.headers.host)) return sendText(res, 421, 'wrong host');
    const url = requestUrl(req);
    if (url === undefined) {
      opts.logger.debug({ method: req.method }, 'request target not understood: 400');
      res.setHeader('connection', 'close');
      return sendText(res, 400, 'bad request target');
    }
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path.startsWith('/api/')) {
      if (method === 'GET' && path === '/api/events') {
        const stream = streamEvents(opts.emulator, res, opts.botRunning, opts.notes);
        streams.add(stream);
        res.on('close', () => streams.delete(stream));
        return;
      }
      // Cross-site form posts carry another Origin; the page's own fetches carry ours or none.
      const origin = req.headers.origin;
      if (method !== 'GET' && origin !== undefined && !ownHost(origin.replace(/^http:\/\//, ''))) {
        return sendText(res, 403, 'cross-origin request refused');
      }
      return api.handle(req, res, url);
    }
    if (method !== 'GET' && method !== 'HEAD') return sendText(res, 405, 'method not allowed');
    if (path === '/' || path === '/index.html') return serveIndex(res);
    if (path === '/favicon.ico') return serveStatic(res, '/static/avatars/feedbot.svg');
    if (path.startsWith('/static/')) return serveStatic(res, path);
    if (path.startsWith('/vendor/')) return serveVendor(res, path);
    if (path.startsWith('/sandbox/')) return proxy.handle(res, path);
    if (path.startsWith('/attachments/')) return serveAttachment(opts.emulator, res, path);
    return sendText(res, 404, 'not found');
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      opts.logger.error({ err: error instanceof Error ? error.message : String(error), url: req.url }, 'playground request failed');
      if (!res.headersSent) sendText(res, 500, 'internal error');
      else res.end();
    });
  });

  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => {
        server.off('listening', onListening);
        reject(error);
      };
      const onListening = () => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(p, HOST);
    });

  try {
    await listen(opts.port);
  } catch (error) {
    if (!opts.fallbackToFreePort || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    opts.logger.warn({ port: opts.port }, 'port in use, the playground takes a free one');
    await listen(0);
  }
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${HOST}:${port}`,
    port,
    async close() {
      for (const stream of streams) stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await proxy.close();
    },
  };
}
