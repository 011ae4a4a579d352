/**
 * The one HTTP request of a delivery, as Discord sends it: a signed POST to the Interactions
 * Endpoint URL. HTTPS anywhere (a test's self-signed certificate through `ca`), plain HTTP only
 * to this machine.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { MAX_BODY_BYTES } from '../http.js';

export const USER_AGENT = 'Discord-Interactions/1.0 (+https://discord.com)';

/** PEM certificates to trust besides the system's: a test endpoint's self-signed certificate. */
export type EndpointCa = string | Buffer | (string | Buffer)[];

export interface EndpointAnswer {
  status: number;
  /** The media type, lowercased, without parameters (`application/json`). */
  mediaType: string;
  /** The whole Content-Type header, parameters included (multipart needs its boundary). */
  contentType: string;
  body: Buffer;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The URL, or why Discord (or the emulator, for plain HTTP) would not take it. */
export function parseEndpointUrl(value: string): URL | string {
  if (!URL.canParse(value)) return 'not a URL';
  const url = new URL(value);
  if (url.username || url.password) return 'credentials in the URL are not allowed';
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:') return `the scheme must be https (${url.protocol} given)`;
  const loopback = LOOPBACK_NAMES.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  return loopback ? url : 'plain http is allowed on this machine only (localhost, 127.0.0.0/8, [::1]); use https';
}

/** POSTs `body` to `url`; rejects on a network error or when `signal` aborts (the 3-second rule). */
export function postToEndpoint(url: URL, body: string, headers: Record<string, string>, opts: { signal: AbortSignal; ca?: EndpointCa }): Promise<EndpointAnswer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const allHeaders = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT, ...headers };
  return new Promise((resolve, reject) => {
    // agent: false: one connection per delivery, closed after it, so nothing outlives close().
    const tls = url.protocol === 'https:' && opts.ca !== undefined ? { ca: opts.ca } : {};
    const outgoing = send(url, { method: 'POST', headers: allHeaders, signal: opts.signal, agent: false, ...tls }, (res) => {
      readAnswer(res).then(resolve, reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function readAnswer(res: IncomingMessage): Promise<EndpointAnswer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      res.destroy();
      throw new Error('the answer is larger than Discord takes');
    }
    chunks.push(chunk as Buffer);
  }
  const contentType = res.headers['content-type'] ?? '';
  return { status: res.statusCode ?? 0, contentType, mediaType: contentType.split(';')[0]!.trim().toLowerCase(), body: Buffer.concat(chunks) };
}
