/** Small HTTP helpers: request bodies (JSON and multipart), JSON answers, a path router. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UploadedFile } from './messages.js';

export const MAX_BODY_BYTES = 26 * 1024 * 1024;

export class BodyError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The whole request body, refusing (413) past `maxBytes` without buffering the rest. */
export async function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new BodyError('Request entity too large', 413);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface ParsedBody {
  body: unknown;
  files: UploadedFile[];
}

/** JSON, or multipart/form-data with `payload_json` and `files[n]` (how discord.js uploads). */
export async function parseBody(req: IncomingMessage, raw: Buffer): Promise<ParsedBody> {
  return parseBodyOfType(req.headers['content-type'] ?? '', raw);
}

/** The same, for a body read elsewhere (the answer of an Interactions Endpoint). */
export async function parseBodyOfType(type: string, raw: Buffer): Promise<ParsedBody> {
  if (raw.length === 0) return { body: undefined, files: [] };
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://emulator.invalid/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(raw) }).formData();
    const files: UploadedFile[] = [];
    let body: unknown;
    const entries: [string, FormDataEntryValue][] = [];
    form.forEach((value, field) => entries.push([field, value]));
    for (const [field, value] of entries) {
      if (typeof value === 'string') {
        if (field === 'payload_json') body = JSON.parse(value);
        continue;
      }
      files.push({ field, name: value.name, contentType: value.type || 'application/octet-stream', data: Buffer.from(await value.arrayBuffer()) });
    }
    return { body, files };
  }
  return { body: JSON.parse(raw.toString('utf8')), files: [] };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export interface RouteMatch<H> {
  handler: H;
  params: Record<string, string>;
  /** The route pattern, e.g. `/webhooks/:app/:token/messages/:message`. */
  pattern: string;
}

/** Routes by method and `/`-separated pattern with `:param` segments. Segments are URL-decoded. */
export class Router<H> {
  private readonly routes: { method: string; parts: string[]; pattern: string; handler: H }[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.routes.push({ method, parts: pattern.split('/').filter(Boolean), pattern, handler });
    return this;
  }

  /** `undefined` when no pattern matches; `null` handler when the path exists with other methods. */
  match(method: string, segments: string[]): RouteMatch<H> | { handler: null; pattern: string } | undefined {
    let pathExists: string | undefined;
    for (const route of this.routes) {
      if (route.parts.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < route.parts.length; i++) {
        const part = route.parts[i]!;
        const segment = segments[i]!;
        if (part.startsWith(':')) params[part.slice(1)] = segment;
        else if (part !== segment) {
          matched = false;
          break;
        }
      }
      if (!matched) continue;
      if (route.method !== method) {
        pathExists ??= route.pattern;
        continue;
      }
      return { handler: route.handler, params, pattern: route.pattern };
    }
    return pathExists ? { handler: null, pattern: pathExists } : undefined;
  }
}

export function splitPath(pathname: string): string[] {
  return pathname
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}
