/**
 * Interactions POSTed to an Interactions Endpoint as Discord sends them: the raw JSON body signed
 * with the application's Ed25519 key (`X-Signature-Ed25519` over `X-Signature-Timestamp` + body).
 * The key pair is made here (node:crypto); the emulator is given its private half, so what it
 * answers as the application's `verify_key` is the public half the bot gets as DISCORD_PUBLIC_KEY.
 *
 * postSigned sends one delivery as the emulator's courier does (a connection for it alone),
 * timed from the request to the last byte of the answer; load runs send pre-signed bodies over
 * kept-alive connections instead (http-throughput.ts).
 */
import type { KeyObject } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { INTERACTIONS_USER_AGENT } from '@feedbot/discord-emulator';
import { InteractionSigner, signInteraction } from '@feedbot/discord-emulator/testing';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

export interface EndpointAnswer {
  status: number;
  body: string;
  /** Request sent → answer read (performance.now(), ms). */
  ms: number;
}

/** The application's key pair (the emulator's signer type), and Discord's headers for a body. */
export class BenchSigner {
  private readonly signer = new InteractionSigner();
  readonly privateKey: KeyObject = this.signer.privateKey;
  /** 64 hex characters: DISCORD_PUBLIC_KEY. */
  readonly publicKeyHex: string = this.signer.publicKey;

  /** The body with Discord's headers, signed now (the timestamp stays valid for 5 minutes). */
  signed(payload: object, at = Date.now()): SignedRequest {
    const { body, headers } = signInteraction(this.privateKey, payload, new Date(at));
    return { body, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': INTERACTIONS_USER_AGENT } };
  }
}

/** POSTs a signed request on a connection opened for it alone, as the emulator does. */
export function postSigned(url: string, req: SignedRequest): Promise<EndpointAnswer> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: req.headers, agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** How many choices an autocomplete answer offered (0 for anything else). */
export function choicesIn(answerBody: string): number {
  try {
    const parsed = JSON.parse(answerBody) as { type?: number; data?: { choices?: unknown[] } };
    return parsed.type === 8 ? (parsed.data?.choices?.length ?? 0) : 0;
  } catch {
    return 0;
  }
}
