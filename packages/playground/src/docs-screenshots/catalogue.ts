/**
 * The bot's own sentences, so a story can check that a picture shows the answer the guide talks
 * about (a picture of an unexpected error must fail the run, not land in the guide). Read from the
 * bot's sources at run time, like the stack runs the bot: the playground does not depend on them.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Lang } from './page.js';

export type Catalogues = Record<Lang, Readonly<Record<string, string>>> & {
  /** Every sentence a template can become (its plural forms, `#` as the count's placeholder). */
  variants(template: string): string[];
};

export async function loadCatalogues(botDir: string): Promise<Catalogues> {
  const module = (await import(pathToFileURL(join(botDir, 'src/i18n/index.ts')).href)) as { catalogues?: Record<Lang, Readonly<Record<string, string>>> };
  if (!module.catalogues?.en || !module.catalogues.es) throw new Error(`no catalogues in ${botDir}/src/i18n/index.ts`);
  const plural = (await import(pathToFileURL(join(botDir, 'src/i18n/plural.ts')).href)) as { pluralVariants?: (template: string) => string[] };
  if (!plural.pluralVariants) throw new Error(`no pluralVariants in ${botDir}/src/i18n/plural.ts`);
  return { en: module.catalogues.en, es: module.catalogues.es, variants: plural.pluralVariants };
}

/** Pieces shorter than this say too little to identify a sentence. */
const MIN_FRAGMENT = 6;

/**
 * The parts of a catalogue sentence that show literally in the rendered answer: the text between
 * its placeholders and Markdown marks (bold, code, mentions, line breaks).
 */
export function visibleFragments(template: string): string[] {
  return template
    .split(/\{\w+\}|\*\*|`|\n|<[#@&]?[^>]*>/)
    .map((piece) => piece.replace(/\s+/g, ' ').trim())
    .filter((piece) => piece.length >= MIN_FRAGMENT);
}

/**
 * The fragments of `template` missing from `shown` (whitespace-insensitive); empty when it is
 * there. A sentence with plural forms is there when one of its `variants` is (the answer shows
 * "1 feed forwarded…" or "2 feeds forwarded…", never both); otherwise the closest form's gaps.
 */
export function missingFragments(template: string, shown: string, variants: (template: string) => string[] = (t) => [t]): string[] {
  const text = shown.replace(/\s+/g, ' ');
  const gaps = variants(template).map((form) => visibleFragments(form).filter((piece) => !text.includes(piece)));
  return gaps.reduce((best, next) => (next.length < best.length ? next : best));
}
