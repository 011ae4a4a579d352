/** Writing to one gateway connection: plain JSON frames, or one zlib-stream block per payload. */
import zlib from 'node:zlib';
import { WebSocket } from 'ws';
import { CloseCode, SEND_HIGH_WATER, type Connection } from './protocol.js';

/** Sets up `compress=zlib-stream`; closes with 4002 for any other compression asked for. */
export function openCompression(conn: Connection, compress: string | null): boolean {
  if (compress === null) return true;
  if (compress === 'zlib-stream') {
    conn.deflate = zlib.createDeflate({ chunkSize: 65_535 });
    return true;
  }
  conn.ws.close(CloseCode.DecodeError, `Unsupported compression ${compress}`);
  return false;
}

export function sendRaw(conn: Connection, data: string): void {
  if (conn.ws.readyState !== WebSocket.OPEN) return;
  const deflate = conn.deflate;
  if (!deflate) {
    conn.ws.send(data);
    return;
  }
  // One flushed zlib block per payload, in order: the client inflates until Z_SYNC_FLUSH.
  conn.chain = conn.chain.then(
    () =>
      new Promise<void>((resolve) => {
        deflate.write(data);
        deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
          const chunks: Buffer[] = [];
          let chunk: Buffer | null;
          while ((chunk = deflate.read() as Buffer | null) !== null) chunks.push(chunk);
          if (chunks.length > 0 && conn.ws.readyState === WebSocket.OPEN) conn.ws.send(Buffer.concat(chunks));
          resolve();
        });
      }),
  );
}

export function send(conn: Connection, payload: unknown): void {
  sendRaw(conn, JSON.stringify(payload));
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`; the timer does not outlive the answer. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once what was queued on the connection is compressed and mostly handed to the network
 * (or the connection is gone): lets a sender of thousands of payloads wait for a slow reader.
 */
export async function drained(conn: Connection): Promise<void> {
  while (conn.ws.readyState === WebSocket.OPEN) {
    const compressed = await settlesWithin(conn.chain, 100);
    if (compressed && conn.ws.bufferedAmount <= SEND_HIGH_WATER) return;
    if (compressed) await delay(2);
  }
}

/** Parses a client frame; closes with 4002 and returns undefined when it is not `{ op: number }`. */
export function decodeFrame(conn: Connection, data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): { op: number; d: unknown } | undefined {
  let payload: unknown;
  try {
    const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'object' || payload === null || typeof (payload as { op?: unknown }).op !== 'number') {
    conn.ws.close(CloseCode.DecodeError, 'Error while decoding payload.');
    return undefined;
  }
  return payload as { op: number; d: unknown };
}
