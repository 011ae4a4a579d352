/**
 * A client that speaks bytes, not HTTP: what an attacker, a broken proxy or a slow link sends.
 * Every wait is bounded; the caller reads what came back and when.
 */
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

export interface RawAnswer {
  /** The status line, or undefined when the server closed without answering. */
  statusLine: string | undefined;
  /** Everything the server sent. */
  text: string;
  /** From the first byte written to the server's answer (or close). */
  elapsedMs: number;
  /** The server closed the connection before `timeoutMs`. */
  closed: boolean;
}

/** Opens a connection to 127.0.0.1:port and resolves once it is connected. */
export function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Collects what the server sends on `socket` until it sends a complete status line and headers
 * (`untilAnswer`) or closes, or `timeoutMs` passes.
 */
export function collect(socket: Socket, timeoutMs: number, untilAnswer = true): Promise<RawAnswer> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    let text = '';
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      const statusLine = text.includes('\r\n') ? text.slice(0, text.indexOf('\r\n')) : undefined;
      resolve({ statusLine, text, elapsedMs: performance.now() - startedAt, closed });
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (untilAnswer && text.includes('\r\n\r\n')) finish(false);
    };
    const onClose = () => finish(true);
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', () => undefined);
  });
}

/** Writes `bytes` on a new connection and waits (bounded) for the answer. */
export async function rawRequest(port: number, bytes: string, timeoutMs = 3_000): Promise<RawAnswer> {
  const socket = await open(port);
  try {
    const answer = collect(socket, timeoutMs);
    socket.write(bytes);
    return await answer;
  } finally {
    socket.destroy();
  }
}

/** A pino logger at trace level whose JSON lines the test reads. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'trace', pretty: false, destination }), lines };
}
