/**
 * What a guide story is and what it can do: drive the page as the admin or a member, act as the
 * feed service's operator (keys, paused feeds, an outage), and photograph an answer after checking
 * it says what the guide says it does.
 */
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import type { RunningDemo } from '../demo.js';
import { missingFragments, type Catalogues } from './catalogue.js';
import type { GuidePage, Lang } from './page.js';

export interface PictureCheck {
  /** Catalogue keys whose visible text the picture must show (e.g. `create.title`). */
  says?: string[];
  /** Literal texts it must show too, in any language (an account name, a feed id). */
  shows?: string[];
  /** More of the page in the same picture (a menu open beside the message); their text counts too. */
  around?: Locator[];
}

export interface StoryContext {
  lang: Lang;
  page: GuidePage;
  demo: RunningDemo;
  /** The sentence `key` of the client's catalogue, placeholders left as they are. */
  text(key: string): string;
  /** Photographs `target` as `<name>.png` of this language after checking what it says. */
  picture(target: Locator, name: string, check?: PictureCheck): Promise<void>;
  /**
   * Moves every clock `ms` past now, rounded up to a whole minute (what a post's time shows stays
   * the same from run to run), or exactly `ms` past `from` (an instant an earlier skip returned),
   * and returns that instant; later stories start that much later. For what only time brings (a
   * health sweep every HEALTH_SWEEP_SECONDS).
   */
  skipTime(ms: number, from?: number): Promise<number>;
}

export interface Story {
  /** For progress lines and errors. */
  name: string;
  run(ctx: StoryContext): Promise<void>;
}

/** The words a picture shows: the answer's text plus the titles the renderer draws from attributes. */
function shownText(target: Locator): Promise<string> {
  return target.evaluate((node) => {
    const titled = Array.from(node.querySelectorAll('[embed-title], [field-title]'), (n) => `${n.getAttribute('embed-title') ?? ''} ${n.getAttribute('field-title') ?? ''}`);
    return [node.textContent ?? '', ...titled].join('\n');
  });
}

export class PictureTaker {
  /** File names written, per language, in order. */
  readonly written: Record<Lang, string[]> = { en: [], es: [] };

  constructor(
    private readonly outDir: string,
    private readonly catalogues: Catalogues,
  ) {}

  context(lang: Lang, page: GuidePage, demo: RunningDemo, skipTime: StoryContext['skipTime']): StoryContext {
    const catalogue = this.catalogues[lang];
    const text = (key: string): string => {
      const template = catalogue[key];
      if (template === undefined) throw new Error(`no catalogue entry ${key}`);
      return template;
    };
    return {
      lang,
      page,
      demo,
      text,
      skipTime,
      picture: async (target, name, check = {}) => {
        const shown = (await Promise.all([target, ...(check.around ?? [])].map(shownText))).join('\n');
        const problems = [
          ...(check.says ?? []).flatMap((key) => missingFragments(text(key), shown, this.catalogues.variants).map((piece) => `${key}: “${piece}”`)),
          ...(check.shows ?? []).filter((literal) => !shown.includes(literal)).map((literal) => `“${literal}”`),
        ];
        if (problems.length) throw new Error(`${name} (${lang}) does not show ${problems.join(', ')}; it shows: ${shown.replace(/\s+/g, ' ').slice(0, 400)}`);
        const file = `${name}.png`;
        if (this.written[lang].includes(file)) throw new Error(`two pictures named ${file}`);
        await page.picture(target, join(this.outDir, lang, 'images', file), check.around);
        this.written[lang].push(file);
      },
    };
  }
}
