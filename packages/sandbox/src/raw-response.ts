/**
 * Answers written straight to a socket, for connections no HTTP reply object exists for: a
 * request the HTTP parser gave up on, plain HTTP that the front door refuses.
 */
import type { Socket } from 'node:net';

/** A raw HTTP/1.1 JSON response that closes the connection. */
export function rawJsonResponse(status: number, reason: string, body: unknown, headers: Record<string, string>): string {
  const json = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${json}`;
}

/**
 * Sends a last answer on a connection the HTTP parser gave up on. `end` (not `destroy`) so the
 * bytes are flushed through TLS; the timer covers a peer that never closes its side.
 */
export function answerAndClose(socket: Socket, response: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(response);
  setTimeout(() => socket.destroy(), 2000).unref();
}
