/**
 * A client that speaks bytes, not HTTP: request lines no HTTP client would send, written straight
 * to a socket on 127.0.0.1. Every wait is bounded; the caller reads what came back and when.
 */
import { connect } from 'node:net';

export interface SocketAnswer {
  /** The status line, or undefined when nothing complete came back within the bound. */
  statusLine: string | undefined;
  /** Everything the server sent. */
  text: string;
  /** From writing the request to the answer's headers (or the close, or the bound). */
  elapsedMs: number;
}

/** Writes `bytes` on a new connection; resolves at the answer's blank line, the close, or `timeoutMs`. */
export function sendRaw(port: number, bytes: string, timeoutMs = 3_000): Promise<SocketAnswer> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    let startedAt = performance.now();
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const statusLine = text.includes('\r\n') ? text.slice(0, text.indexOf('\r\n')) : undefined;
      resolve({ statusLine, text, elapsedMs: performance.now() - startedAt });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.once('connect', () => {
      startedAt = performance.now();
      socket.write(bytes);
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) finish();
    });
    socket.once('close', finish);
    socket.once('error', () => undefined);
  });
}
