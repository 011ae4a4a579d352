/**
 * `POST /interactions` for INTERACTIONS_MODE=http: Discord's signed requests, verified before
 * anything else is read, then handed to the same router as gateway interactions. The answer to
 * the HTTP request is the interaction's first response (initial-response.ts).
 *
 *   401  missing or wrong signature, or a timestamp more than 5 minutes off (a replay)
 *   409  an interaction id seen before (a replay inside those 5 minutes)
 *   413  a body over MAX_BODY_BYTES (the one check before the signature, which covers the body)
 *   415  a signed body that is not application/json; 400 not an interaction; 400 a target no URL parser reads
 *   200  {"type":1} to a PING; the first response to anything else
 *   503  the bot stopped dispatching, or no first response within the deadline (Discord has given up by then)
 *
 * close() (SIGTERM) never answers 503 to a request that reached the endpoint: a load balancer
 * does not retry a POST it has sent. It answers as usual for the grace period (the ops
 * listener's /readyz says 503 meanwhile, so a load balancer that watches it stops sending
 * here), then closes the listener, so a new connection is refused (nginx passes the request to
 * the next replica, nothing was sent), and answers what still arrives on open connections with
 * `Connection: close` while the requests in flight finish (listener.ts, closeDraining).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { listenError } from './listen-error.js';
import { Observers, type Listener } from '../observers.js';
import type { InitialResponses } from './initial-response.js';
import { closeDraining, createListener, type PathHandler } from './listener.js';
import { isFreshTimestamp, type SeenInteractions } from './replay.js';
import { isSignedByDiscord } from './signature.js';

/** Interactions are small (options, a modal's fields, resolved users); Discord caps messages far below this. */
export const MAX_BODY_BYTES = 256 * 1024;
/** Discord waits 3 s for the first response; after that an answer reaches nobody. */
const FIRST_RESPONSE_DEADLINE_MS = 3_000;
/**
 * How long close() lets the requests in flight finish before cutting the connections left. Every
 * interaction is answered (or given up) within the 3 s deadline once its body arrived; a request
 * still open 5 s after SIGTERM is one Discord no longer waits for, or a client dribbling bytes.
 */
const DRAIN_MS = 5_000;
/**
 * Idle keep-alive connections stay open this long (Node's default is 5 s). A load balancer must
 * close its idle connections before this (nginx: `keepalive_timeout` of the upstream, 3 s in
 * docs/deploy/nginx/interactions.conf): a connection closed here while the proxy sends a POST on
 * it is a 502 the proxy cannot retry.
 */
const KEEP_ALIVE_MS = 10_000;

const InteractionEnvelope = z.looseObject({
  id: z.string().regex(/^\d{17,20}$/),
  application_id: z.string().regex(/^\d{17,20}$/),
  type: z.number().int().min(1),
  token: z.string().min(1),
});

type HttpOutcome = 'ping' | 'answered' | 'no_answer' | 'bad_signature' | 'stale' | 'replayed' | 'too_large' | 'bad_request' | 'stopping';

export interface HttpInteractionRequest {
  outcome: HttpOutcome;
  /** Time from receipt to the HTTP answer. */
  latencyMs: number;
}

export interface InteractionsServerOptions {
  host: string;
  port: number;
  publicKey: KeyObject;
  seen: SeenInteractions;
  responses: InitialResponses;
  /** Hands a verified interaction to discord.js and the router; false when not accepting. */
  dispatch(raw: Record<string, unknown>): boolean;
  logger: Logger;
  now?: () => number;
  deadlineMs?: number;
  /** close(): how long requests in flight may finish (DRAIN_MS; at most 10 s). */
  drainMs?: number;
}

interface CloseOptions {
  /**
   * Answer as usual for this long before the listener closes (default 0): a load balancer that
   * watches /readyz (503 from the start of the shutdown) stops sending here meanwhile.
   */
  graceMs?: number;
  /**
   * Idle keep-alive connections while draining: `leave` them to the client (a load balancer,
   * which closes them after its own idle time-out) until the drain ends, or `close` them at once
   * (the default). See listener.ts, DrainOptions.
   */
  idle?: 'close' | 'leave';
}

export interface InteractionsServer {
  readonly url: string;
  onRequest(listener: Listener<HttpInteractionRequest>): () => void;
  /** Stops the endpoint without refusing a request that reached it; resolves once closed. */
  close(opts?: CloseOptions): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly outcome: HttpOutcome,
    message: string,
  ) {
    super(message);
  }
}

export function startInteractionsServer(opts: InteractionsServerOptions): Promise<InteractionsServer> {
  const now = opts.now ?? Date.now;
  const requests = new Observers<HttpInteractionRequest>('http interaction request');

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<HttpOutcome> {
    const signature = header(req, 'x-signature-ed25519');
    const timestamp = header(req, 'x-signature-timestamp');
    if (!signature || !timestamp) throw new Refusal(401, 'bad_signature', 'missing signature headers');
    const body = await readBody(req);
    if (!isSignedByDiscord(opts.publicKey, signature, timestamp, body)) throw new Refusal(401, 'bad_signature', 'invalid request signature');
    if (!isFreshTimestamp(timestamp, now())) throw new Refusal(401, 'stale', 'request timestamp too old or in the future');
    // Only after the signature: an unsigned caller learns nothing of what the endpoint accepts.
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new Refusal(415, 'bad_request', 'the body must be application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new Refusal(400, 'bad_request', 'the body is not JSON');
    }
    const envelope = InteractionEnvelope.safeParse(parsed);
    if (!envelope.success) throw new Refusal(400, 'bad_request', 'not an interaction');
    const interaction = envelope.data;
    if (interaction.type === 1) {
      sendJson(res, 200, { type: 1 });
      return 'ping';
    }
    if (!(await opts.seen.firstTime(interaction.id))) throw new Refusal(409, 'replayed', 'interaction already received');
    const first = opts.responses.expect(interaction.id, opts.deadlineMs ?? FIRST_RESPONSE_DEADLINE_MS);
    if (!opts.dispatch(interaction)) throw new Refusal(503, 'stopping', 'shutting down');
    const answer = await first;
    if (answer === undefined) throw new Refusal(503, 'no_answer', 'no response within the deadline');
    sendJson(res, 200, answer);
    return 'answered';
  }

  const onRequest: PathHandler = (req, res, path) => {
    const startedAt = performance.now();
    const done = (outcome: HttpOutcome) => requests.emit({ outcome, latencyMs: performance.now() - startedAt });
    if (path !== '/interactions') return sendJson(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'POST' });
    handle(req, res).then(done, (error: unknown) => {
      if (error instanceof Refusal) {
        if (!res.headersSent && !res.destroyed) sendJson(res, error.status, { error: error.message }, error.status === 413 ? { connection: 'close' } : {});
        opts.logger.debug({ status: error.status, outcome: error.outcome }, 'interaction request refused');
        return done(error.outcome);
      }
      opts.logger.error({ err: error }, 'interaction request failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      done('bad_request');
    });
  };
  const server: Server = createListener(onRequest, { logger: opts.logger, requestTimeoutMs: 10_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: KEEP_ALIVE_MS });

  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, opts.host, opts.port, 'interactions endpoint', { port: 'PORT', host: 'HOST' }));
    server.once('error', failed);
    server.listen({ host: opts.host, port: opts.port }, () => {
      server.off('error', failed);
      const { port, address, family } = server.address() as AddressInfo;
      const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
      opts.logger.info({ url: `${url}/interactions` }, 'interactions endpoint listening');
      let closed: Promise<void> | undefined;
      resolve({
        url,
        onRequest: (listener) => requests.add(listener),
        close(closeOpts = {}) {
          closed ??= (async () => {
            const graceMs = closeOpts.graceMs ?? 0;
            if (graceMs > 0) {
              opts.logger.info({ graceMs }, 'interactions endpoint: answering as usual for the grace period, then closing the listener');
              await new Promise((resolve) => setTimeout(resolve, graceMs));
            }
            const drainMs = Math.min(opts.drainMs ?? DRAIN_MS, 10_000);
            const draining = closeDraining(server, { drainMs, idle: closeOpts.idle ?? 'close' });
            const connections = await new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
            opts.logger.info({ connections, drainMs }, 'interactions endpoint: listener closed, new connections are refused; draining');
            await draining;
            opts.logger.info('interactions endpoint closed');
          })();
          return closed;
        },
      });
    });
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function sendJson(res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
  res.end(body);
}

/** The raw body (the signature covers its exact bytes), refused past MAX_BODY_BYTES. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(new Refusal(413, 'too_large', `body over ${MAX_BODY_BYTES} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new Refusal(413, 'too_large', `body over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    // The client went away, or the drain after SIGTERM cut it: nobody is left to answer.
    const gone = () => reject(new Refusal(400, 'bad_request', 'the client closed the connection before the body ended'));
    req.on('error', gone);
    req.on('close', () => {
      if (!req.complete) gone();
    });
  });
}
