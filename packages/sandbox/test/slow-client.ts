/**
 * Test clients that misbehave slowly on real sockets to 127.0.0.1: they connect (over TLS or not),
 * send bytes at a pace and report when the server closed the connection. Every client is bounded:
 * at `boundMs` it gives up and destroys its socket, so a server that never closes fails the test
 * instead of hanging it.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface SlowClientOptions {
  port: number;
  /** Trust this certificate and speak TLS; plain TCP when absent. */
  ca?: string;
  /** Sent at once when connected. */
  prefix?: string;
  /** Then one byte every `everyMs`: first those of `drip`, then those of `dripForever` in a loop. */
  drip?: string;
  dripForever?: string;
  everyMs?: number;
  /** Give up (and destroy the socket) after this long. */
  boundMs: number;
}

export interface SlowClientOutcome {
  /** ms from connecting until the server closed the connection; null if it was still open at the bound. */
  closedAfterMs: number | null;
  /** Everything the server sent. */
  received: string;
}

export interface SlowClient {
  /** Resolves once connected (after the TLS handshake for TLS). */
  connected: Promise<void>;
  outcome: Promise<SlowClientOutcome>;
  socket: Socket;
  /** Send more bytes now. */
  write(bytes: string): void;
}

export function slowClient(options: SlowClientOptions): SlowClient {
  const started = performance.now();
  const socket = options.ca
    ? tlsConnect({ host: '127.0.0.1', port: options.port, ca: options.ca, servername: 'localhost' })
    : netConnect({ host: '127.0.0.1', port: options.port });
  let received = '';
  let dripper: NodeJS.Timeout | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);

  const connected = new Promise<void>((resolve, reject) => {
    socket.once(options.ca ? 'secureConnect' : 'connect', () => resolve());
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
  connected.catch(() => undefined);

  const outcome = new Promise<SlowClientOutcome>((resolve) => {
    const bound = setTimeout(() => {
      clearInterval(dripper);
      socket.removeAllListeners('close');
      socket.destroy();
      resolve({ closedAfterMs: null, received });
    }, options.boundMs);
    socket.once('close', () => {
      clearTimeout(bound);
      clearInterval(dripper);
      resolve({ closedAfterMs: performance.now() - started, received });
    });
  });

  void connected.then(() => {
    if (options.prefix) socket.write(options.prefix);
    const once = options.drip ?? '';
    const forever = options.dripForever ?? '';
    if (!once && !forever) return;
    let next = 0;
    dripper = setInterval(() => {
      const byte = next < once.length ? once[next] : forever[(next - once.length) % forever.length];
      next++;
      if (byte === undefined) clearInterval(dripper);
      else if (!socket.destroyed) socket.write(byte);
    }, options.everyMs ?? 50);
  }, () => undefined);

  return { connected, outcome, socket, write: (bytes) => void socket.write(bytes) };
}

/** A request line and headers dripped a byte at a time that never end: header lines, forever. */
export const ENDLESS_HEADERS = { drip: 'GET /health HTTP/1.1\r\nHost: localhost\r\n', dripForever: 'X-Slow: a\r\n' };
