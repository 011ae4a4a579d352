/**
 * Messages the bot created (interaction replies, follow-ups, channel messages), kept as the
 * `APIMessage` objects Discord would return, so component interactions can carry them.
 */
import type { APIAttachment, APIMessage, APIUser } from 'discord-api-types/v10';
import type { AttachmentStore } from './attachments.js';
import { snowflake } from './snowflake.js';
import { MessageFlag, isObject } from './validation/fields.js';

export interface UploadedFile {
  /** Form field name, e.g. `files[0]`. */
  field: string;
  name: string;
  contentType: string;
  data: Buffer;
}

export interface StoredMessage {
  message: APIMessage;
  guildId: string | null;
  /** The interaction whose token created it, if any. */
  interactionId: string | null;
  deleted: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface CreateMessageInit {
  channelId: string;
  guildId: string | null;
  author: APIUser;
  /** Set for interaction responses: Discord sends them as the application's webhook. */
  applicationId?: string;
  type: number;
  flags: number;
  data: Record<string, unknown>;
  files?: UploadedFile[];
  interactionId?: string;
  interactionMetadata?: APIMessage['interaction_metadata'];
}

/** Message flags a bot may set or change after creation. */
const EDITABLE_FLAGS = MessageFlag.SuppressEmbeds | MessageFlag.IsComponentsV2;

/**
 * The message object Discord returns for a create body (`data`): what the store keeps, and what
 * the unit-test REST recorder answers webhook calls with.
 */
export function messageObject(init: Omit<CreateMessageInit, 'files' | 'interactionId'> & { attachments: APIAttachment[] }, now = Date.now()): APIMessage {
  const data = init.data;
  return {
    id: snowflake(now),
    channel_id: init.channelId,
    author: init.author,
    content: typeof data.content === 'string' ? data.content : '',
    timestamp: new Date(now).toISOString(),
    edited_timestamp: null,
    tts: data.tts === true,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: init.attachments,
    embeds: normalizeEmbeds(data.embeds),
    pinned: false,
    type: init.type,
    flags: init.flags,
    components: Array.isArray(data.components) ? data.components : [],
    ...(init.applicationId ? { webhook_id: init.applicationId, application_id: init.applicationId } : {}),
    ...(init.interactionMetadata ? { interaction_metadata: init.interactionMetadata } : {}),
    ...(init.guildId ? { guild_id: init.guildId } : {}),
  } as unknown as APIMessage;
}

function normalizeEmbeds(value: unknown): unknown[] {
  if (!Array.isArray(value)) return [];
  return value.map((embed) => {
    if (!isObject(embed)) return embed;
    const out: Record<string, unknown> = { type: 'rich', ...embed };
    if (Array.isArray(embed.fields)) {
      out.fields = embed.fields.map((f) => (isObject(f) ? { inline: false, ...f } : f));
    }
    for (const key of Object.keys(out)) if (out[key] === undefined || out[key] === null) delete out[key];
    return out;
  });
}

export class MessageStore {
  private readonly messages = new Map<string, StoredMessage>();

  constructor(private readonly files: AttachmentStore) {}

  get(id: string): StoredMessage | undefined {
    return this.messages.get(id);
  }

  live(id: string): StoredMessage | undefined {
    const stored = this.messages.get(id);
    return stored && !stored.deleted ? stored : undefined;
  }

  list(filter: { channelId?: string; guildId?: string } = {}): StoredMessage[] {
    return [...this.messages.values()].filter(
      (m) =>
        !m.deleted &&
        (filter.channelId === undefined || m.message.channel_id === filter.channelId) &&
        (filter.guildId === undefined || m.guildId === filter.guildId),
    );
  }

  create(init: CreateMessageInit): StoredMessage {
    const now = Date.now();
    const attachments = this.resolveAttachments([], init.data.attachments, init.files ?? []);
    const message = messageObject({ ...init, attachments }, now);
    const id = message.id;
    const stored: StoredMessage = {
      message,
      guildId: init.guildId,
      interactionId: init.interactionId ?? null,
      deleted: false,
      createdAt: now,
      updatedAt: now,
    };
    this.messages.set(id, stored);
    return stored;
  }

  /** Applies a message edit body. The first edit of a deferred (loading) message is not an "edit". */
  edit(stored: StoredMessage, data: Record<string, unknown>, files: UploadedFile[] = []): StoredMessage {
    const m = stored.message as unknown as Record<string, unknown>;
    const flags = typeof m.flags === 'number' ? m.flags : 0;
    const wasLoading = (flags & MessageFlag.Loading) !== 0;
    if ('content' in data) m.content = typeof data.content === 'string' ? data.content : '';
    if ('embeds' in data) m.embeds = normalizeEmbeds(data.embeds);
    if ('components' in data) m.components = Array.isArray(data.components) ? data.components : [];
    if ('attachments' in data || files.length > 0) {
      m.attachments = this.resolveAttachments(m.attachments as APIAttachment[], data.attachments, files);
    }
    let nextFlags = flags & ~MessageFlag.Loading;
    if (typeof data.flags === 'number') nextFlags = (nextFlags & ~EDITABLE_FLAGS) | (data.flags & EDITABLE_FLAGS);
    m.flags = nextFlags;
    const now = Date.now();
    if (!wasLoading) m.edited_timestamp = new Date(now).toISOString();
    stored.updatedAt = now;
    return stored;
  }

  delete(stored: StoredMessage): void {
    stored.deleted = true;
    stored.updatedAt = Date.now();
  }

  /** A deleted channel takes its messages with it; returns how many went. */
  deleteChannel(channelId: string): number {
    let count = 0;
    for (const stored of this.messages.values()) {
      if (stored.deleted || stored.message.channel_id !== channelId) continue;
      this.delete(stored);
      count++;
    }
    return count;
  }

  /** Attachments kept by id from `keep` plus newly uploaded files referenced by `attachments[].id`. */
  private resolveAttachments(existing: APIAttachment[], requested: unknown, files: UploadedFile[]): APIAttachment[] {
    const result: APIAttachment[] = [];
    const byField = new Map(files.map((f) => [f.field, f]));
    const list = Array.isArray(requested) ? requested : files.map((_, i) => ({ id: String(i) }));
    for (const entry of list) {
      if (!isObject(entry)) continue;
      const id = String(entry.id ?? '');
      const kept = existing.find((a) => a.id === id);
      if (kept) {
        result.push(kept);
        continue;
      }
      const file = byField.get(`files[${id}]`);
      if (!file) continue;
      const description = typeof entry.description === 'string' ? entry.description : undefined;
      result.push(this.files.add({ data: file.data, contentType: file.contentType, filename: file.name }, { description }));
    }
    return result;
  }
}
