/**
 * A bot's Interactions Endpoint in miniature, for the HTTP delivery tests: node:http (or https) on
 * 127.0.0.1 that verifies Discord's signature with node:crypto alone (independently of the
 * emulator's own signing code), answers PINGs, and hands interactions to the test's handler.
 */
import { createPublicKey, verify } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { APIInteraction } from 'discord-api-types/v10';

export interface ReceivedRequest {
  headers: IncomingMessage['headers'];
  raw: string;
  verified: boolean;
  /** True when the emulator gave up on the request before it was answered. */
  aborted: boolean;
}

export interface EndpointAnswer {
  status?: number;
  /** JSON unless `raw` is given. */
  body?: unknown;
  raw?: { data: string | Buffer; contentType: string };
  delayMs?: number;
}

export type InteractionHandler = (interaction: APIInteraction, req: ReceivedRequest) => EndpointAnswer | Promise<EndpointAnswer>;

export interface TestEndpoint {
  url: string;
  requests: ReceivedRequest[];
  /** What the bot does with the next interactions; the default answers "ok". */
  handle(handler: InteractionHandler): void;
  close(): Promise<void>;
}

export interface TestEndpointOptions {
  /** The emulator's public key (64 hex characters); read on every request. */
  publicKey: () => string;
  /** false: a careless bot that takes any signature. */
  verifySignatures?: boolean;
  /** Serve HTTPS with this certificate. */
  tls?: { key: string; cert: string };
}

function verifies(publicKeyHex: string, req: IncomingMessage, raw: string): boolean {
  const signature = String(req.headers['x-signature-ed25519'] ?? '');
  const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
  if (!/^[0-9a-f]{128}$/.test(signature)) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') }, format: 'jwk' });
  return verify(null, Buffer.from(timestamp + raw), key, Buffer.from(signature, 'hex'));
}

function reply(res: ServerResponse, answer: EndpointAnswer): void {
  if (res.destroyed) return;
  const status = answer.status ?? 200;
  if (answer.raw) {
    res.writeHead(status, { 'content-type': answer.raw.contentType });
    res.end(answer.raw.data);
  } else if (answer.body === undefined) {
    res.writeHead(status);
    res.end();
  } else {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }
}

export async function startTestEndpoint(opts: TestEndpointOptions): Promise<TestEndpoint> {
  const requests: ReceivedRequest[] = [];
  let handler: InteractionHandler = () => ({ body: { type: 4, data: { content: 'ok' } } });
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const received: ReceivedRequest = { headers: req.headers, raw, verified: verifies(opts.publicKey(), req, raw), aborted: false };
    res.on('close', () => {
      if (!res.writableFinished) received.aborted = true;
    });
    requests.push(received);
    if (!received.verified && opts.verifySignatures !== false) return reply(res, { status: 401, raw: { data: 'invalid request signature', contentType: 'text/plain' } });
    const interaction = JSON.parse(raw) as APIInteraction;
    if (interaction.type === 1) return reply(res, { body: { type: 1 } });
    const answer = await handler(interaction, received);
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    reply(res, answer);
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => void onRequest(req, res);
  const server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}/interactions`,
    requests,
    handle(next) {
      handler = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
