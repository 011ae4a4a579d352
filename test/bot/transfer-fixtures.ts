/**
 * What the export/import tests need besides the bot harness: a /feed import payload carrying an
 * attachment (resolved as Discord resolves it, served from a CDN origin on the harness's
 * MockAgent), the guild's channels (the gateway's cache, or Discord's REST API in HTTP mode), the
 * files the bot uploads (multipart bodies, which the REST recorder does not keep), and readers of
 * the answers.
 */
import { ApplicationCommandOptionType, type APIChatInputApplicationCommandInteraction } from 'discord-api-types/v10';
import { expect } from 'vitest';
import { GUILD_ID, chatInput, type Invoker } from '../helpers/discord.js';
import type { BotHarness } from '../helpers/bot.js';
import { knowGuild, type KnownChannel } from './known-guilds.js';

export const CDN_ORIGIN = 'https://cdn.discordapp.test';
export const C1 = '1300000000000000001';
export const C2 = '1300000000000000002';
export const C3 = '1300000000000000003';

let attachmentSeq = 0;

export interface ImportFile {
  name: string;
  body: string | Buffer;
  /** The declared size; the body's length when absent. */
  size?: number;
  contentType?: string | null;
  /** Whether the CDN is asked for it (not when the bot refuses before downloading). */
  served?: boolean;
}

/** `/feed import archivo:<file>`, the file served once by the CDN interceptor. */
export function importPayload(h: BotHarness, file: ImportFile, invoker: Invoker = {}): APIChatInputApplicationCommandInteraction {
  const id = `15000000000000000${String(++attachmentSeq).padStart(2, '0')}`;
  const path = `/attachments/${C1}/${id}/${encodeURIComponent(file.name)}`;
  const body = typeof file.body === 'string' ? Buffer.from(file.body, 'utf8') : file.body;
  if (file.served ?? true) h.agent.get(CDN_ORIGIN).intercept({ path, method: 'GET' }).reply(200, body);
  const raw = chatInput('feed', 'import', {}, invoker);
  raw.data.options = [
    { name: 'import', type: ApplicationCommandOptionType.Subcommand, options: [{ name: 'archivo', type: ApplicationCommandOptionType.Attachment, value: id }] },
  ];
  const contentType = file.contentType === undefined ? (file.name.endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8') : file.contentType;
  raw.data.resolved = {
    attachments: {
      [id]: {
        id,
        filename: file.name,
        size: file.size ?? body.length,
        url: `${CDN_ORIGIN}${path}`,
        proxy_url: `${CDN_ORIGIN}${path}`,
        ...(contentType ? { content_type: contentType } : {}),
      },
    },
  };
  return raw;
}

/** An export document holding `feeds` (`cuenta`, `canal`, `tipos` at least). */
export function exportFile(feeds: object[], name = 'feeds.json'): ImportFile {
  return { name, body: JSON.stringify({ format: 'feedbot-feeds', version: 1, exportedAt: '2026-11-21T12:00:00.000Z', guildId: GUILD_ID, feeds }) };
}

/**
 * The guild's channels: over the gateway, the cache the Guilds intent fills; over HTTP, what
 * Discord's REST API answers to GET /guilds/{id}/channels (no cache there); `rest` forces the latter.
 */
export function guildChannels(h: BotHarness, known: readonly KnownChannel[], opts: { rest?: boolean } = {}): void {
  if (h.transport === 'gateway' && !opts.rest) {
    knowGuild(h.discord.client, GUILD_ID, known);
    return;
  }
  const channels = known.map((c) => (typeof c === 'string' ? { id: c, type: 0 } : c)).map(({ id, type }) => ({ id, name: `channel-${id.slice(-4)}`, type }));
  h.discord.recorder.respond = (call) => (call.method === 'GET' && call.path === `/guilds/${GUILD_ID}/channels` ? Response.json(channels) : undefined);
}

type MakeRequest = (url: string, init: { method?: string; body?: unknown }) => Promise<unknown>;

/** Multipart bodies the bot sends (files), in order: `payload_json` parsed, and each file's text. */
export function captureUploads(h: BotHarness): { payload: Record<string, unknown>; files: { name: string; text: string }[] }[] {
  const uploads: { payload: Record<string, unknown>; files: { name: string; text: string }[] }[] = [];
  const rest = h.discord.client.rest as unknown as { options: { makeRequest: MakeRequest } };
  const inner = rest.options.makeRequest;
  rest.options.makeRequest = async (url, init) => {
    if (init.body instanceof FormData) {
      const form = init.body;
      // The DOM typings of FormData (this project's lib) lack entries(); Node's FormData has it.
      const entries = [...(form as unknown as Iterable<[string, unknown]>)];
      const files = await Promise.all(
        entries.filter(([key]) => key.startsWith('files[')).map(async ([, value]) => ({ name: (value as File).name, text: await (value as Blob).text() })),
      );
      uploads.push({ payload: JSON.parse(String(form.get('payload_json'))) as Record<string, unknown>, files });
    }
    return inner(url, init);
  };
  return uploads;
}

export interface Embed {
  title?: string;
  description?: string;
  color?: number;
  fields?: { name: string; value: string }[];
}
export interface Message {
  flags?: number;
  embeds: Embed[];
  components?: { components: { custom_id: string; label: string; style: number }[] }[];
}

/** Every message state the user saw, in order: callbacks' data and edits' bodies. */
export function shown(h: BotHarness): Message[] {
  return h.discord.calls
    .filter((c) => c.path.endsWith('/callback') || (c.method === 'PATCH' && c.path.endsWith('/messages/@original')))
    .map((c) => (c.path.endsWith('/callback') ? (c.body as { data?: Message }).data : (c.body as Message | undefined)))
    .filter((m): m is Message => m !== undefined && Array.isArray(m.embeds));
}

export function lastShown(h: BotHarness): Message {
  const all = shown(h);
  expect(all.length).toBeGreaterThan(0);
  return all.at(-1)!;
}

/** The preview's Import and Cancel custom_ids. */
export function previewButtons(h: BotHarness): { confirm: string; cancel: string } {
  const [confirm, cancel] = lastShown(h).components![0]!.components;
  return { confirm: confirm!.custom_id, cancel: cancel!.custom_id };
}

export const field = (m: Message, prefix: string) => m.embeds[0]!.fields?.find((f) => f.name.startsWith(prefix))?.value;
