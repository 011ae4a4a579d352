/**
 * Files, both ways. `POST /api/attachments?filename=…`: a file the visitor picked for a command's
 * attachment option, uploaded to the emulator as the Discord client uploads it before sending
 * the command (the option then names the attachment's id). `GET /attachments/{id}/{filename}`:
 * the emulator's copy of an attachment (the bot's export, or an upload), served from the
 * playground's own origin so the page's links download without reaching the emulator.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ATTACHMENT_SIZE_LIMIT, type DiscordEmulator } from '@feedbot/discord-emulator';
import { BodyError, readBody } from '@feedbot/discord-emulator/http';
import { HttpError, sendText } from './http.js';

const FILENAME = /^[^/\\\0]{1,255}$/;
const ATTACHMENT_PATH = /^\/attachments\/(\d{15,21})\/([^/]{1,765})$/;

async function readFile(req: IncomingMessage): Promise<Buffer> {
  try {
    return await readBody(req, ATTACHMENT_SIZE_LIMIT);
  } catch (error) {
    if (error instanceof BodyError) throw new HttpError(413, `files are limited to ${ATTACHMENT_SIZE_LIMIT / 1024 / 1024} MB, as in Discord`);
    throw error;
  }
}

/** The upload route; undefined for any other. */
export async function uploadRoute(emulator: DiscordEmulator, req: IncomingMessage, method: string, path: string, query: URLSearchParams) {
  if (method !== 'POST' || path !== '/api/attachments') return undefined;
  const filename = query.get('filename') ?? '';
  if (!FILENAME.test(filename)) throw new HttpError(400, 'filename must be 1–255 characters without slashes');
  const data = await readFile(req);
  const contentType = req.headers['content-type'] || 'application/octet-stream';
  return { status: 201, body: emulator.uploadAttachment({ filename, contentType, data }) };
}

/** `GET /attachments/{id}/{filename}`: always a download, never a page of the playground's origin. */
export function serveAttachment(emulator: DiscordEmulator, res: ServerResponse, path: string): void {
  const match = ATTACHMENT_PATH.exec(path);
  let name: string | undefined;
  try {
    name = match ? decodeURIComponent(match[2]!) : undefined;
  } catch {
    return sendText(res, 400, 'bad request: malformed percent-encoding');
  }
  const file = match ? emulator.attachment(match[1]!) : undefined;
  if (!file || file.filename !== name) return sendText(res, 404, 'not found');
  res.writeHead(200, {
    'content-type': file.contentType,
    'content-length': file.data.length,
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // A file served from this origin could be a page; it may never run anything here.
    'content-security-policy': "sandbox; default-src 'none'",
  });
  res.end(file.data);
}
