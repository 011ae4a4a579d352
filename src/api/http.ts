/**
 * One HTTP attempt: send, read the whole body (bounded in size and time), or report why not.
 * Policy (retries, gate, validation) lives in the client; this module only knows transport.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { loadUndici } from './undici.js';

/** Larger bodies are cut off: no answer of this API is legitimately that big. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface AttemptRequest {
  dispatcher?: Dispatcher;
  url: URL;
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface AttemptResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body exceeded MAX_BODY_BYTES and was cut off. */
  truncated: boolean;
}

type TransportFailureKind = 'timeout' | 'connection';

/** Thrown by `attempt` when no complete response arrived. */
export class TransportFailure extends Error {
  constructor(
    readonly kind: TransportFailureKind,
    readonly systemCode: string | undefined,
    /** Response headers, when the time-out hit while the body was being read. */
    readonly headers: IncomingHttpHeaders | undefined,
    cause: unknown,
  ) {
    super(kind, { cause });
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The first `code` found on the error or its cause chain (undici wraps system errors). */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && typeof e === 'object' && e !== null; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export async function attempt(req: AttemptRequest): Promise<AttemptResponse> {
  // Before the clock starts: the first request loads undici (./undici.ts).
  const { request } = await loadUndici();
  const controller = new AbortController();
  let timedOut = false;
  // One clock for headers and body together: a server that trickles bytes must not hold a
  // command beyond its time-out. undici's own headers/body time-outs stay as a backstop.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  let headers: IncomingHttpHeaders | undefined;
  try {
    const res = await request(req.url, {
      dispatcher: req.dispatcher,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    headers = res.headers;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        truncated = true;
        break; // leaving the loop destroys the stream
      }
      chunks.push(chunk);
    }
    return { status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), truncated };
  } catch (err) {
    const code = errorCode(err);
    if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
      throw new TransportFailure('timeout', code, headers, err);
    }
    throw new TransportFailure('connection', code, headers, err);
  } finally {
    clearTimeout(timer);
  }
}
