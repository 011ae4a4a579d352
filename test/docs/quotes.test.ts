/**
 * The guide quotes the bot word for word: every quote block of a page (`> …`) is a sentence of
 * the catalogue of the page's language, its placeholders filled with example values. When a
 * sentence changes in the catalogue, this fails until the guide (and its pictures) follow.
 */
import { describe, expect, it } from 'vitest';
import { catalogues } from '../../src/i18n/index.js';
import { pluralVariants } from '../../src/i18n/plural.js';
import { GUIDE_LANGS, guidePages, quotes, read, shortName } from './markdown.js';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A catalogue sentence as a pattern over the quote: placeholders (and the Discord markup around
 * them: `<#{channel}>` is written #channel in the guide) match any text, whitespace any whitespace.
 */
function sentencePattern(template: string): RegExp {
  const WILDCARD = '\u0000';
  const marked = template.replace(/<(?:[#@]|@&|t:)?\{\w+\}(?::\w)?>/g, WILDCARD).replace(/\{\w+\}/g, WILDCARD);
  const source = marked
    .split(WILDCARD)
    .map((piece) => escape(piece.replace(/\s+/g, ' ')).replace(/ /g, '\\s+'))
    .join('.+?');
  return new RegExp(`^${source}$`, 's');
}

function inCatalogue(lang: (typeof GUIDE_LANGS)[number], quote: string): boolean {
  // A sentence with plural forms is any of its forms (`{count, plural, one {# feed} other {# feeds}}`).
  return Object.values(catalogues[lang]).flatMap(pluralVariants).some((template) => sentencePattern(template).test(quote));
}

describe('sentence patterns', () => {
  it('match a sentence with its placeholders filled, and nothing else', () => {
    const pattern = sentencePattern('Feed #{id} does not exist in this server.');
    expect(pattern.test('Feed #999 does not exist in this server.')).toBe(true);
    expect(pattern.test('Feed #{id} does not exist in this server.')).toBe(true);
    expect(pattern.test('Feed #999 does not exist.')).toBe(false);
    expect(sentencePattern('Posts from **@{cuenta}** will be forwarded to <#{channel}>.').test('Posts from **@natgeotravel** will be forwarded to #media.')).toBe(true);
    expect(sentencePattern('Line one.\nLine two.').test('Line one. Line two.')).toBe(true);
  });
});

describe('sentences the guide quotes', () => {
  for (const lang of GUIDE_LANGS) {
    for (const page of guidePages(lang)) {
      it(`${shortName(page)}: every quote is a sentence of the ${lang} catalogue`, () => {
        const unknown = quotes(read(page))
          .filter((q) => !inCatalogue(lang, q.text))
          .map((q) => `line ${q.line}: ${q.text}`);
        expect(unknown).toEqual([]);
      });
    }
  }
});
