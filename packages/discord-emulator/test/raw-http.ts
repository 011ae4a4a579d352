/**
 * Requests as a browser or an attacker's page would send them, with headers fetch() will not let a
 * test set (Host) and without the defaults it adds: node:http, straight to the emulator's port.
 */
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  method?: string;
  /** Path and query, e.g. `/_emulator/interactions`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One request to `baseUrl`'s port on 127.0.0.1; `headers.host` replaces the real Host. */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  // Node sends a DELETE's body without a length unless told; a browser always declares it.
  const length = req.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(req.body)) };
  const headers = { ...length, ...req.headers };
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: url.hostname, port: url.port, method: req.method ?? 'GET', path: req.path, headers, setHost: req.headers?.host === undefined },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** What a WebSocket handshake to `/gateway` gets: the status line's code (101 = accepted). */
export function upgradeStatus(baseUrl: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({
      host: url.hostname,
      port: url.port,
      path: '/gateway?v=10&encoding=json',
      setHost: headers.host === undefined,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    outgoing.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    outgoing.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
