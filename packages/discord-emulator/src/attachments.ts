/**
 * Files on the emulator's "CDN": what the bot attached to its messages, and what a user attached
 * to a command's attachment option. Each is served at its `url` (the control API's
 * `/attachments/{id}/{filename}`), as cdn.discordapp.com serves attachments: with the signed
 * `ex`, `is` and `hm` parameters Discord adds, which the emulator does not check.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { APIAttachment } from 'discord-api-types/v10';
import { InteractionInputError, type AttachmentUpload } from './payloads/input.js';
import { snowflake } from './snowflake.js';

export interface StoredFile {
  data: Buffer;
  contentType: string;
  filename: string;
}

/** Discord's upload limit for servers without boosts (`attachment_size_limit` of interactions). */
export const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** How long Discord's signed attachment links last. */
const LINK_LIFETIME_S = 24 * 60 * 60;

/**
 * The content type Discord reports for an uploaded file: the declared one, with the
 * `charset=utf-8` it gives text files (`text/plain; charset=utf-8`) when none is said.
 */
export function reportedContentType(declared: string | undefined): string {
  const type = (declared ?? '').trim() || 'application/octet-stream';
  const media = type.split(';')[0]!.trim().toLowerCase();
  const textual = media.startsWith('text/') || media === 'application/json';
  return textual && !/;\s*charset=/i.test(type) ? `${media}; charset=utf-8` : type;
}

export class AttachmentStore {
  private readonly files = new Map<string, StoredFile>();
  /** The attachment objects of files users uploaded (for attachment options), by id. */
  private readonly uploads = new Map<string, APIAttachment>();
  private readonly signingKey = randomBytes(32);

  constructor(private readonly baseUrl: () => string) {}

  get(id: string): StoredFile | undefined {
    return this.files.get(id);
  }

  /** Keeps the bytes and answers the attachment object Discord gives them. */
  add(file: StoredFile, extra: { description?: string; ephemeral?: boolean } = {}): APIAttachment {
    const id = snowflake();
    this.files.set(id, file);
    const url = this.url(id, file.filename);
    return {
      id,
      filename: file.filename,
      size: file.data.length,
      url,
      proxy_url: url,
      content_type: file.contentType,
      ...(extra.description !== undefined ? { description: extra.description } : {}),
      ...(extra.ephemeral ? { ephemeral: true } : {}),
    } as APIAttachment;
  }

  /**
   * A file a user uploads, as the Discord client does when they pick one for a command's
   * attachment option: an ephemeral attachment, until a command names it by id.
   */
  upload(file: AttachmentUpload): APIAttachment {
    if (file.filename.length === 0 || file.filename.length > 1024 || /[/\\]/.test(file.filename)) {
      throw new InteractionInputError(`not a file name: "${file.filename}"`);
    }
    const data = typeof file.data === 'string' ? Buffer.from(file.data, 'utf8') : Buffer.from(file.data);
    if (data.length > ATTACHMENT_SIZE_LIMIT) throw new InteractionInputError(`${file.filename} is over the ${ATTACHMENT_SIZE_LIMIT}-byte upload limit`);
    const attachment = this.add({ filename: file.filename, data, contentType: reportedContentType(file.contentType) }, { ephemeral: true });
    this.uploads.set(attachment.id, attachment);
    return structuredClone(attachment);
  }

  /** An uploaded file's attachment object. */
  uploaded(id: string): APIAttachment | undefined {
    const attachment = this.uploads.get(id);
    return attachment ? structuredClone(attachment) : undefined;
  }

  private url(id: string, filename: string): string {
    const issued = Math.floor(Date.now() / 1000);
    const ex = (issued + LINK_LIFETIME_S).toString(16);
    const is = issued.toString(16);
    const hm = createHmac('sha256', this.signingKey).update(`${id}/${filename}:${ex}:${is}`).digest('hex');
    return `${this.baseUrl()}/${id}/${encodeURIComponent(filename)}?ex=${ex}&is=${is}&hm=${hm}`;
  }
}
