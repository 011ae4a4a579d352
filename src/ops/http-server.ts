/**
 * The operations listener (METRICS_PORT): plain node:http, three read-only routes.
 *   GET /healthz  200 while the process runs (liveness).
 *   GET /readyz   200 or 503 with a JSON report of what is not ready (readiness).
 *   GET /metrics  the Prometheus text exposition.
 * HEAD works wherever GET does; any other method is a 405, any other path a 404. Nothing here
 * reads a request body, and no answer carries a secret.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenError } from '../http/listen-error.js';
import { createListener } from '../http/listener.js';
import type { Logger } from '../logger.js';
import type { Readiness } from './readiness.js';

export interface OpsServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  scrape(): Promise<{ contentType: string; body: string }>;
  readiness(): Promise<Readiness>;
  logger: Logger;
}

export interface OpsServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const COMMON_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

function send(req: IncomingMessage, res: ServerResponse, status: number, contentType: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const sendJson = (req: IncomingMessage, res: ServerResponse, status: number, value: unknown, extra?: Record<string, string>) =>
  send(req, res, status, 'application/json; charset=utf-8', JSON.stringify(value), extra);

export function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const { logger } = opts;
  const routes: Record<string, Route> = {
    '/healthz': async (req, res) => sendJson(req, res, 200, { alive: true }),
    '/readyz': async (req, res) => {
      const report = await opts.readiness();
      sendJson(req, res, report.ready ? 200 : 503, report);
    },
    '/metrics': async (req, res) => {
      const { contentType, body } = await opts.scrape();
      send(req, res, 200, contentType, body);
    },
  };

  const server: Server = createListener(
    (req, res, path) => {
      const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
      if (!route) return sendJson(req, res, 404, { error: 'not found', routes: Object.keys(routes) });
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(req, res, 405, { error: 'method not allowed' }, { allow: 'GET, HEAD' });
      route(req, res).catch((error: unknown) => {
        logger.error({ err: error, path }, 'ops endpoint failed');
        if (!res.headersSent) sendJson(req, res, 500, { error: 'internal error' });
        else res.destroy();
      });
    },
    // A scraper that stalls must not hold a socket for long; the answers are small.
    { logger, requestTimeoutMs: 10_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 5_000 },
  );

  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, opts.host, opts.port));
    server.once('error', failed);
    server.listen({ host: opts.host, port: opts.port }, () => {
      server.off('error', failed);
      server.on('error', (error) => logger.error({ err: error }, 'ops listener error'));
      const { port, address, family } = server.address() as AddressInfo;
      const host = family === 'IPv6' ? `[${address}]` : address;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${host}:${port}`,
        port,
        close() {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}

