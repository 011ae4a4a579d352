/**
 * An independent reader of what Discord would render as markdown in a piece of text, for tests:
 * the markdown characters left unescaped (a backslash before one makes it literal), and lines
 * that start a list, heading or quote.
 */
/** `(` `)` only make a link after `]`, which is in the set. */
const MARKDOWN = new Set('\\`*_~|[]<>#-+:'.split(''));

/** The markdown a reader would see rendered in `text`: unescaped characters (with their index) and line-start rules. */
export function liveMarkdown(text: string): string[] {
  const live: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      if (i + 1 < text.length) i++;
      else live.push(`trailing backslash at ${i}`);
      continue;
    }
    if (MARKDOWN.has(c)) live.push(`${c} at ${i}`);
  }
  for (const line of text.split('\n')) if (/^\s*\d+\.\s/.test(line)) live.push(`numbered list: ${line}`);
  return live;
}

/** What Discord shows for `text`: every `\x` read as `x`. */
export function unescapeDiscord(text: string): string {
  return text.replace(/\\([^0-9A-Za-z\s])/g, '$1');
}
