/**
 * Downloads an import file from Discord's CDN: only JSON or CSV, at most MAX_IMPORT_BYTES (checked
 * from the attachment's declared size before asking, and again while reading, whatever the CDN
 * says), within a time-out, decoded as strict UTF-8. Every failure is a FormatError the user reads.
 */
import type { Dispatcher } from 'undici';
import { loadUndici } from '../api/undici.js';
import { FormatError, type FileKind } from './format.js';

const MAX_IMPORT_BYTES = 256 * 1024;
const DOWNLOAD_TIMEOUT_MS = 10_000;

/** What the bot knows of an attachment before downloading it (discord.js' Attachment has these). */
export interface AttachmentInfo {
  url: string;
  name: string;
  size: number;
  contentType: string | null;
}

/** JSON or CSV, by extension first (uploads often carry a generic content type), then by content type. */
export function fileKind(attachment: Pick<AttachmentInfo, 'name' | 'contentType'>): FileKind | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(attachment.name)?.[1]?.toLowerCase();
  if (ext === 'json' || ext === 'csv') return ext;
  const type = attachment.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'text/csv') return 'csv';
  return undefined;
}

interface DownloadOptions {
  dispatcher?: Dispatcher;
  maxBytes?: number;
  timeoutMs?: number;
}

export async function downloadImportFile(attachment: AttachmentInfo, opts: DownloadOptions = {}): Promise<{ kind: FileKind; text: string }> {
  const maxBytes = opts.maxBytes ?? MAX_IMPORT_BYTES;
  const kind = fileKind(attachment);
  if (!kind) throw new FormatError('transfer.file.type');
  const tooLarge = () => new FormatError('transfer.file.tooLarge', { max: `${Math.round(maxBytes / 1024)} KiB` });
  if (attachment.size > maxBytes) throw tooLarge();
  if (!/^https?:\/\//i.test(attachment.url)) throw new FormatError('transfer.file.download');

  const { request } = await loadUndici();
  const signal = AbortSignal.timeout(opts.timeoutMs ?? DOWNLOAD_TIMEOUT_MS);
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    const res = await request(attachment.url, { method: 'GET', signal, ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}) });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => undefined);
      throw new FormatError('transfer.file.download');
    }
    for await (const chunk of res.body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      received += buffer.length;
      if (received > maxBytes) {
        res.body.destroy();
        throw tooLarge();
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof FormatError) throw error;
    throw new FormatError('transfer.file.download');
  }
  try {
    return { kind, text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    throw new FormatError('transfer.file.encoding');
  }
}
