/**
 * The one way text we did not write (from the feed API, an import file, a Discord name or a
 * user's option) is put into a message Discord renders as markdown. discord.js's escapeMarkdown
 * leaves masked links `[x](y)`, headings `#`, subtext `-#`, lists `-`/`1.`, block quotes `>`,
 * autolinks `<…>`, bare URLs and emoji `:name:` live by default, so an account named
 * `[free nitro](https://evil.example)` became a clickable link: this escaper covers them all.
 *
 * Discord (like CommonMark) reads a backslash before any ASCII punctuation as that character,
 * literally, so escaping every character a rule could start with is invisible to the reader.
 * Button and select labels, autocomplete choices and modal titles render no markdown: there,
 * `plainLine` is enough (a backslash would show).
 */
import { plain, truncate } from './text.js';

/**
 * Every ASCII character that starts or ends a Discord markdown rule: emphasis `* _ ~ |`, code
 * `` ` ``, masked links `[ ]` (without them `(…)` is plain text, so parentheses stay as they are),
 * autolinks and mentions `< >`, headings `#`, lists `- +`, quotes `>`, URLs and emoji `:`, and
 * the escape itself `\`.
 */
const MARKDOWN_CHARACTERS = /[\\`*_~|[\]<>#\-+:]/g;
/** A numbered list item (`1. x`) at the start of a line: only its period needs escaping. */
const NUMBERED_ITEM = /^(\s*\d+)\./gm;
const LINE_BREAKS = /[\r\n\u2028\u2029]+/g;

/** `text` with every markdown character escaped: what it shows is exactly `text`. */
export function escapeDiscordMarkdown(text: string): string {
  return text.replace(MARKDOWN_CHARACTERS, '\\$&').replace(NUMBERED_ITEM, '$1\\.');
}

/** One line of outside text for a label that renders no markdown: no control characters, no pings, no line breaks. */
export function plainLine(text: string, max?: number): string {
  const line = plain(text).replace(LINE_BREAKS, ' ');
  return max === undefined ? line : truncate(line, max);
}

/**
 * Outside text for markdown: defused (no control characters, no pings), on one line unless
 * `multiline` (a caption), cut to `max` before escaping (so a cut never strands a backslash), and
 * escaped. The central function for every string the API (or a file, or a name) provides.
 */
export function apiText(text: string, opts: { max?: number; multiline?: boolean } = {}): string {
  let clean = plain(text);
  if (!opts.multiline) clean = clean.replace(LINE_BREAKS, ' ');
  if (opts.max !== undefined) clean = truncate(clean, opts.max);
  return escapeDiscordMarkdown(clean);
}

/**
 * Outside text shown as inline code (an unknown state, a channel id that is not one): code shows
 * markdown literally, but a backtick would close it, so backticks become `'`; never empty.
 */
export function apiCode(text: string, max = 40): string {
  return `\`${codeContent(text, max)}\``;
}

/** What goes between the backticks of a catalogue sentence's own code span (`` `{cuenta}` ``). */
export function codeContent(text: string, max = 40): string {
  const clean = plainLine(text, max).replace(/`/g, "'");
  return clean === '' ? ' ' : clean;
}
