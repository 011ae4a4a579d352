/**
 * The guide's pictures: every committed PNG is shown by a page (or the README) and every page's
 * picture is committed, in both languages, with the same names; each looks like a cropped answer
 * (not a whole page, not a sliver).
 *
 * With FEEDBOT_SCREENSHOTS_DIR (CI sets it after `npm run docs:screenshots -- --out <dir>`), also:
 * the script produced exactly the committed set, each picture close to the committed one's size.
 * Without Chromium the script writes nothing and this part is skipped locally (never in CI).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUIDE, GUIDE_LANGS, ROOT, guidePages, isExternal, linkedPath, links, read, type GuideLang } from './markdown.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const GENERATED = process.env.FEEDBOT_SCREENSHOTS_DIR;
/** A cropped answer at 1× is a few hundred pixels wide; the tallest (two posts) about 1,200 high. */
const SENSIBLE = { minWidth: 200, maxWidth: 1000, minHeight: 60, maxHeight: 1600 };
/** How far a freshly generated picture may differ from the committed one (other fonts, one more line). */
const SIZE_TOLERANCE = 0.2;

const imagesDir = (root: string, lang: GuideLang): string => join(root, lang, 'images');

function pngNames(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.png')).sort() : [];
}

/** Width and height from a PNG's IHDR chunk; throws on anything that is not a PNG. */
function pngSize(file: string): { width: number; height: number } {
  const head = readFileSync(file).subarray(0, 24);
  if (head.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a' || head.subarray(12, 16).toString('ascii') !== 'IHDR') throw new Error(`${file} is not a PNG`);
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** The pictures of `lang` that its pages (and its README) show, as names in its images folder. */
function shownPictures(lang: GuideLang): string[] {
  const readme = join(ROOT, lang === 'en' ? 'README.md' : 'README.es.md');
  const dir = imagesDir(GUIDE, lang);
  const names = [...guidePages(lang), ...(existsSync(readme) ? [readme] : [])].flatMap((page) =>
    links(read(page))
      .filter((l) => l.kind === 'image' && !isExternal(l.target))
      .map((l) => relative(dir, linkedPath(page, l.target) ?? ''))
      .filter((name) => !name.startsWith('..') && !isAbsolute(name)),
  );
  return [...new Set(names)].sort();
}

describe('the guide’s pictures', () => {
  for (const lang of GUIDE_LANGS) {
    it(`${lang}: every committed picture is shown, every shown picture is committed`, () => {
      expect(pngNames(imagesDir(GUIDE, lang))).toEqual(shownPictures(lang));
    });

    it(`${lang}: every picture is a cropped answer`, () => {
      const odd = pngNames(imagesDir(GUIDE, lang))
        .map((name) => ({ name, ...pngSize(join(imagesDir(GUIDE, lang), name)) }))
        .filter((p) => p.width < SENSIBLE.minWidth || p.width > SENSIBLE.maxWidth || p.height < SENSIBLE.minHeight || p.height > SENSIBLE.maxHeight);
      expect(odd).toEqual([]);
    });
  }

  it('English and Spanish have the same pictures', () => {
    expect(pngNames(imagesDir(GUIDE, 'es'))).toEqual(pngNames(imagesDir(GUIDE, 'en')));
  });
});

const generatedSkipped = GENERATED !== undefined && !existsSync(CHROMIUM) && !process.env.CI;
if (generatedSkipped) console.warn(`[screenshots.test] generated pictures not compared: no Chromium at ${CHROMIUM}, so docs:screenshots wrote none`);

describe.skipIf(GENERATED === undefined || generatedSkipped)('the pictures npm run docs:screenshots just made', () => {
  for (const lang of GUIDE_LANGS) {
    it(`${lang}: are exactly the committed ones, each about the committed size`, () => {
      const fresh = imagesDir(GENERATED!, lang);
      const committed = pngNames(imagesDir(GUIDE, lang));
      expect(pngNames(fresh)).toEqual(committed);
      const far = committed.flatMap((name) => {
        const now = pngSize(join(fresh, name));
        const before = pngSize(join(imagesDir(GUIDE, lang), name));
        const off = (a: number, b: number) => Math.abs(a - b) / b > SIZE_TOLERANCE;
        return off(now.width, before.width) || off(now.height, before.height) ? [`${name}: ${now.width}×${now.height}, committed ${before.width}×${before.height}`] : [];
      });
      expect(far).toEqual([]);
    });
  }
});
