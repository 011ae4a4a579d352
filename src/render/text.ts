/**
 * Text helpers for Discord's limits: truncation that never splits a character (or an emoji made
 * of several code points), and the way Discord counts an embed's size.
 */
import { TimestampStyles, time, type APIEmbed } from 'discord.js';

// Built by the first text that needs cutting: a grapheme segmenter loads ICU's break-iterator
// data, about 7 ms that every start would pay if it were built at import.
let segmenter: Intl.Segmenter | undefined;

/** Cut `text` to at most `max` UTF-16 units (Discord counts those), adding an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const budget = max - 1; // room for '…'
  let out = '';
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(text)) {
    if (out.length + segment.length > budget) break;
    out += segment;
  }
  return `${out.trimEnd()}…`;
}

/** Characters Discord counts towards the 6000 limit: title, description, fields, footer, author. */
export function embedLength(embed: APIEmbed): number {
  let n = (embed.title?.length ?? 0) + (embed.description?.length ?? 0);
  n += embed.footer?.text.length ?? 0;
  n += embed.author?.name.length ?? 0;
  for (const f of embed.fields ?? []) n += f.name.length + f.value.length;
  return n;
}

/** Only absolute http(s) URLs may be used as embed links and images. */
export function safeHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Unix seconds from an ISO timestamp, for <t:…> markup. */
export function unixSeconds(iso: string | Date): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : iso.getTime();
  return Math.floor(ms / 1000);
}

/** A date and time in each reader's own zone (`<t:…:f>`), then how long ago (`<t:…:R>`). */
export function dateTimeAndAgo(iso: string | Date): string {
  const seconds = unixSeconds(iso);
  return `${time(seconds, TimestampStyles.ShortDateTime)} (${time(seconds, TimestampStyles.RelativeTime)})`;
}

/** A date and time in each reader's own zone (`<t:…:f>`). */
export function dateTime(iso: string | Date): string {
  return time(unixSeconds(iso), TimestampStyles.ShortDateTime);
}

/** Remove characters that would break formatting or pings in text that came from the API. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '').replace(/@(everyone|here)/g, '@\u200b$1');
}
