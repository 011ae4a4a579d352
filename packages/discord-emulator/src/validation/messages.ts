/** Message create/edit bodies: content, embeds (with their 6000-character total) and components. */
import { FormErrors, type PathSegment } from '../errors.js';
import { validateMessageComponents } from './components.js';
import { LIMITS, MessageFlag, arr, bool, charLength, int, isObject, obj, present, str, type Obj } from './fields.js';

function embedLength(embed: Obj): number {
  const s = (v: unknown): number => (typeof v === 'string' ? charLength(v) : 0);
  let total = s(embed.title) + s(embed.description);
  if (isObject(embed.footer)) total += s(embed.footer.text);
  if (isObject(embed.author)) total += s(embed.author.name);
  if (Array.isArray(embed.fields)) {
    for (const field of embed.fields) if (isObject(field)) total += s(field.name) + s(field.value);
  }
  return total;
}

function validateEmbed(e: FormErrors, embed: unknown, path: PathSegment[]): void {
  const o = obj(e, embed, path, true);
  if (!o) return;
  str(e, o.title, [...path, 'title'], { max: LIMITS.embedTitle });
  str(e, o.description, [...path, 'description'], { max: LIMITS.embedDescription });
  str(e, o.url, [...path, 'url'], { max: 2048 });
  int(e, o.color, [...path, 'color'], { min: 0, max: 0xffffff });
  const footer = obj(e, o.footer, [...path, 'footer']);
  if (footer) str(e, footer.text, [...path, 'footer', 'text'], { min: 1, max: LIMITS.embedFooter, required: true });
  const author = obj(e, o.author, [...path, 'author']);
  if (author) str(e, author.name, [...path, 'author', 'name'], { min: 1, max: LIMITS.embedAuthor, required: true });
  for (const key of ['image', 'thumbnail'] as const) {
    const media = obj(e, o[key], [...path, key]);
    if (media) str(e, media.url, [...path, key, 'url'], { min: 1, max: 2048, required: true });
  }
  const fields = arr(e, o.fields, [...path, 'fields'], { max: LIMITS.embedFields });
  fields?.forEach((field, i) => {
    const f = obj(e, field, [...path, 'fields', i], true);
    if (!f) return;
    str(e, f.name, [...path, 'fields', i, 'name'], { min: 1, max: LIMITS.embedFieldName, required: true });
    str(e, f.value, [...path, 'fields', i, 'value'], { min: 1, max: LIMITS.embedFieldValue, required: true });
    bool(e, f.inline, [...path, 'fields', i, 'inline']);
  });
  if (present(o.timestamp) && (typeof o.timestamp !== 'string' || Number.isNaN(Date.parse(o.timestamp)))) {
    e.add([...path, 'timestamp'], 'DATE_TYPE_PARSE', `Could not parse ${String(o.timestamp)}. Should be ISO8601.`);
  }
}


export interface MessageCheckResult {
  errors: FormErrors;
  /** True when the payload has nothing to show (Discord's 50006). */
  empty: boolean;
}

/**
 * Message create/edit bodies (channel messages, follow-ups, edits, callback types 4 and 7).
 * `path` is the prefix of every error (`['data']` inside an interaction callback).
 */
export function validateMessagePayload(
  body: unknown,
  opts: { path?: PathSegment[]; requireContent: boolean; existingFlags?: number },
): MessageCheckResult {
  const e = new FormErrors();
  const path = opts.path ?? [];
  const o = obj(e, body, path, opts.requireContent);
  if (!o) return { errors: e, empty: opts.requireContent && e.ok };
  const flags = int(e, o.flags, [...path, 'flags'], { min: 0 }) ?? opts.existingFlags ?? 0;
  const v2 = (flags & MessageFlag.IsComponentsV2) !== 0;
  const content = str(e, o.content, [...path, 'content'], { max: LIMITS.content });
  const embeds = arr(e, o.embeds, [...path, 'embeds'], { max: LIMITS.embeds });
  embeds?.forEach((embed, i) => validateEmbed(e, embed, [...path, 'embeds', i]));
  if (embeds) {
    const total = embeds.reduce<number>((sum, embed) => sum + (isObject(embed) ? embedLength(embed) : 0), 0);
    if (total > LIMITS.embedTotal) {
      e.add([...path, 'embeds'], 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${LIMITS.embedTotal}`);
    }
  }
  validateMessageComponents(e, o.components, [...path, 'components'], flags);
  if (v2 && ((content !== undefined && content !== '') || (embeds && embeds.length > 0))) {
    e.add([...path, 'flags'], 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The content and embeds fields cannot be used with the IS_COMPONENTS_V2 flag');
  }
  bool(e, o.tts, [...path, 'tts']);
  arr(e, o.attachments, [...path, 'attachments'], { max: 10 });
  const hasComponents = Array.isArray(o.components) && o.components.length > 0;
  const hasAttachments = Array.isArray(o.attachments) && o.attachments.length > 0;
  const empty =
    opts.requireContent &&
    (content === undefined || content.trim() === '') &&
    !(embeds && embeds.length > 0) &&
    !hasComponents &&
    !hasAttachments &&
    !present(o.poll) &&
    !(Array.isArray(o.sticker_ids) && o.sticker_ids.length > 0);
  return { errors: e, empty };
}
