/**
 * The little Markdown reading the documentation tests need: which files are documentation, the
 * links and images they contain, and the quote blocks of the user guide. Code (fenced blocks and
 * inline code spans) is skipped: a link shown as an example is not a link.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const GUIDE = join(ROOT, 'docs', 'guide');
export const GUIDE_LANGS = ['en', 'es'] as const;
export type GuideLang = (typeof GUIDE_LANGS)[number];

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** README.md, README.es.md, every Markdown file under docs/ and each workspace package's README. */
export function documentationFiles(): string[] {
  const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(ROOT, 'packages', entry.name, 'README.md'))
    .filter((file) => existsSync(file));
  return [join(ROOT, 'README.md'), join(ROOT, 'README.es.md'), ...markdownFiles(join(ROOT, 'docs')), ...packages];
}

/** The guide's pages of one language. */
export function guidePages(lang: GuideLang): string[] {
  return markdownFiles(join(GUIDE, lang));
}

export const shortName = (file: string): string => relative(ROOT, file);

/** The text with fenced code blocks blanked (line structure kept). */
export function withoutCodeBlocks(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s*(```|~~~)/.exec(line)?.[1];
      if (fence) {
        if (marker === fence) fence = undefined;
        return '';
      }
      if (marker) {
        fence = marker;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** The text without any code: fenced blocks and inline spans. */
export function withoutCode(markdown: string): string {
  return withoutCodeBlocks(markdown).replace(/(`+)[^`\n]*?\1/g, '');
}

export interface Link {
  /** `image` for ![alt](src) and <img>, else `link`. */
  kind: 'link' | 'image';
  target: string;
  /** The image's alt text. */
  alt?: string;
  line: number;
}

/** Inline links and images, reference definitions, and HTML `<img src>` / `<a href>`. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  withoutCode(markdown)
    .split('\n')
    .forEach((text, index) => {
      const line = index + 1;
      for (const m of text.matchAll(/(!?)\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        found.push({ kind: m[1] ? 'image' : 'link', target: m[3]!, ...(m[1] ? { alt: m[2] } : {}), line });
      }
      const definition = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text);
      if (definition) found.push({ kind: 'link', target: definition[1]!, line });
      for (const m of text.matchAll(/<img\b[^>]*\bsrc="([^"]+)"[^>]*>/g)) {
        found.push({ kind: 'image', target: m[1]!, alt: /\balt="([^"]*)"/.exec(m[0])?.[1] ?? '', line });
      }
      for (const m of text.matchAll(/<a\b[^>]*\bhref="([^"]+)"/g)) found.push({ kind: 'link', target: m[1]!, line });
    });
  return found;
}

/** Whether a link leaves the repository (a web address, mail) or stays on the page (#anchor). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/** The file a relative link points at: anchor and query dropped, %-escapes decoded. */
export function linkedPath(fromFile: string, target: string): string | undefined {
  const path = target.replace(/[#?].*$/, '');
  if (path === '') return undefined;
  return join(fromFile, '..', decodeURIComponent(path));
}

export interface Quote {
  /** The quoted lines joined by spaces, as Markdown renders them. */
  text: string;
  line: number;
}

/**
 * The guide's quote blocks (consecutive `>` lines). In the guide a quote block holds exactly what
 * the bot says, nothing else.
 */
export function quotes(markdown: string): Quote[] {
  const found: Quote[] = [];
  let current: { lines: string[]; line: number } | undefined;
  const flush = () => {
    if (current) found.push({ text: current.lines.join(' ').replace(/\s+/g, ' ').trim(), line: current.line });
    current = undefined;
  };
  withoutCodeBlocks(markdown)
    .split('\n')
    .forEach((text, index) => {
      const m = /^\s*>\s?(.*)$/.exec(text);
      if (!m) return flush();
      current ??= { lines: [], line: index + 1 };
      current.lines.push(m[1]!);
    });
  flush();
  return found.filter((q) => q.text !== '');
}

export const read = (file: string): string => readFileSync(file, 'utf8');
