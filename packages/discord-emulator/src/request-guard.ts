/**
 * Who may talk to the emulator. It runs on a developer's machine beside a browser, and whoever
 * drives it drives the bot, so a web page must not:
 *
 * - Host: only the emulator's own address. A page that rebinds its DNS name to 127.0.0.1 reaches
 *   the port, but its requests still carry its own name (DNS rebinding).
 * - Content type: writes declare JSON (multipart on the routes where Discord takes files). The
 *   requests a browser sends cross-site without asking first (text/plain, form posts, bodyless
 *   no-cors POSTs) therefore never reach a handler.
 * - Origin: a write, or a gateway handshake, from a page other than the configured one is
 *   refused; multipart is one of the "simple" types, so the content type alone is not enough.
 * - CORS: headers for the one configured origin, none otherwise.
 *
 * Bots and test runners send no Origin and pass all of this unchanged.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface Refusal {
  status: number;
  reason: string;
}

/** Methods a cross-site page can only read with, never change anything. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Methods that must declare their body type even without a body. */
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

const JSON_TYPE = 'application/json';
const MULTIPART_TYPE = 'multipart/form-data';

/** `Application/JSON; charset=utf-8` → `application/json`. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** True when `value` is one origin exactly as a browser sends it: `http://127.0.0.1:8080`. */
export function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

export class RequestGuard {
  private ownHosts = new Set<string>();

  /** `corsOrigin`: the one page allowed to call the control API from a browser, if any. */
  constructor(private readonly corsOrigin: string | undefined) {}

  /** The names the emulator answers to, once it knows its address and port. */
  listeningOn(address: AddressInfo): void {
    const literal = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const names = [literal, 'localhost'];
    // A client omits the port from Host only when it is the scheme's default.
    this.ownHosts = new Set(names.flatMap((name) => (address.port === 80 ? [`${name}:80`, name] : [`${name}:${address.port}`])));
  }

  /** Before routing, for every request and WebSocket handshake: its Host, and a page's Origin. */
  checkSender(req: IncomingMessage, opts: { handshake?: boolean } = {}): Refusal | undefined {
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !this.ownHosts.has(host)) {
      return { status: 421, reason: 'wrong host: the emulator answers to its own loopback address only' };
    }
    const origin = req.headers.origin;
    const changes = opts.handshake === true || !READS.has((req.method ?? 'GET').toUpperCase());
    if (changes && origin !== undefined && origin !== this.corsOrigin) {
      return { status: 403, reason: 'cross-origin request refused' };
    }
    return undefined;
  }

  /** 415 unless a write, or any request with a body, declares JSON (or multipart where allowed). */
  checkBodyType(req: IncomingMessage, opts: { multipart: boolean }): Refusal | undefined {
    if (!WRITES.has((req.method ?? 'GET').toUpperCase()) && !hasBody(req)) return undefined;
    const type = mediaType(req.headers['content-type']);
    if (type === JSON_TYPE || (opts.multipart && type === MULTIPART_TYPE)) return undefined;
    const wanted = opts.multipart ? `${JSON_TYPE} or ${MULTIPART_TYPE}` : JSON_TYPE;
    return { status: 415, reason: `Content-Type must be ${wanted}` };
  }

  /** Whether a preflight (OPTIONS) comes from the configured page. */
  allowsPreflight(origin: string | undefined): boolean {
    return this.corsOrigin !== undefined && origin === this.corsOrigin;
  }

  /** CORS headers for the configured page; none for anyone else. */
  corsHeaders(origin: string | undefined): Record<string, string> {
    if (this.corsOrigin === undefined) return {};
    if (origin !== this.corsOrigin) return { vary: 'origin' };
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers': 'content-type',
      vary: 'origin',
    };
  }
}

/** The answer to a refused WebSocket handshake, written on the raw socket (there is no response object yet). */
export function refuseHandshake(socket: Duplex, refusal: Refusal): void {
  const body = JSON.stringify({ error: refusal.reason });
  const head = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`, 'connection: close'];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
