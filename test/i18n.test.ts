import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en.js';
import { es } from '../src/i18n/es.js';
import { catalogues, langFor, t } from '../src/i18n/index.js';
import { pluralNames, pluralVariants, selectPlurals } from '../src/i18n/plural.js';

/** The placeholders of every form a sentence can take (plural branches are text, not placeholders). */
const placeholders = (s: string) => [...new Set([...pluralNames(s), ...pluralVariants(s).flatMap((v) => [...v.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))])].sort();

describe('catalogues', () => {
  it('have exactly the same keys', () => {
    expect(Object.keys(es).sort()).toEqual(Object.keys(en).sort());
  });

  it('use the same placeholders in every language', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect({ key, placeholders: placeholders(es[key]) }).toEqual({ key, placeholders: placeholders(en[key]) });
    }
  });

  it('have no empty strings', () => {
    for (const [lang, cat] of Object.entries(catalogues)) {
      for (const [key, value] of Object.entries(cat)) expect({ lang, key, empty: value.trim() === '' }).toEqual({ lang, key, empty: false });
    }
  });

  it('every key used in the code exists', () => {
    const files = ['commands', 'src/bot', 'src/render']
      .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`))
      .filter((f) => f.endsWith('.ts'));
    const used = new Set<string>();
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(/\bt\('([a-z][\w.]+)'/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(20);
    for (const key of used) expect(Object.keys(en)).toContain(key);
  });
});

describe('one word for one thing', () => {
  const spanish = Object.entries(es);

  it('Spanish says "clave de API", never "clave API" nor "clave de la API"', () => {
    expect(spanish.filter(([, text]) => /clave (?:de la )?API/i.test(text.replace(/clave de API/gi, ''))).map(([key]) => key)).toEqual([]);
  });

  it('Spanish names the feed-manager roles "roles de gestor de feeds" only', () => {
    expect(spanish.filter(([, text]) => /rol(?:es)? gestor(?:es)? de feeds|roles? de gestión/i.test(text)).map(([key]) => key)).toEqual([]);
  });

  it('the panel toggle and the filter it applies use the same term, in both languages', () => {
    for (const lang of ['en', 'es'] as const) {
      const filter = t(lang, 'health.list.filter.problemas');
      expect({ lang, toggle: t(lang, 'panel.problems.off').toLowerCase() }).toEqual({ lang, toggle: expect.stringContaining(filter) });
    }
  });

  it('"latest post" is the time it was forwarded, in the list and on the card alike', () => {
    for (const lang of ['en', 'es'] as const) {
      const list = t(lang, 'list.latest', { at: 1 });
      expect(t(lang, 'card.latest.value', { kind: 'Reel', at: 1 })).toBe(`Reel · ${list}`);
    }
    expect(t('en', 'list.latest', { at: 1 })).toBe('forwarded <t:1:R>');
  });
});

describe('plural forms', () => {
  it('no sentence hedges its plural with (s), (es) or (n): every count chooses its form', () => {
    for (const [lang, cat] of Object.entries(catalogues)) {
      for (const [key, value] of Object.entries(cat)) expect({ lang, key, hedged: /\w\((?:s|es|n|as|os)\)/.test(value) }).toEqual({ lang, key, hedged: false });
    }
  });

  it.each([
    ['en', 'bulkDelete.confirm.title', 1, 'Delete 1 feed?'],
    ['en', 'bulkDelete.confirm.title', 3, 'Delete 3 feeds?'],
    ['es', 'bulkDelete.confirm.title', 1, '¿Eliminar 1 feed?'],
    ['es', 'bulkDelete.confirm.title', 0, '¿Eliminar 0 feeds?'],
    ['en', 'list.filters', 1, '1 filter'],
    ['es', 'list.filters', 2, '2 filtros'],
  ] as const)('%s %s with %d', (lang, key, count, sentence) => {
    expect(t(lang, key, { count })).toBe(sentence);
  });

  it('Spanish counts requests as petición / peticiones, days as día / días', () => {
    expect(t('es', 'import.preview.budget', { count: 1 })).toMatch(/^Crearlo usa 1 petición de /);
    expect(t('es', 'import.preview.budget', { count: 4 })).toMatch(/^Crearlos usa 4 peticiones de /);
    expect(t('es', 'health.warning.stale', { days: 1 })).toBe('Sin publicaciones desde hace más de 1 día');
    expect(t('en', 'health.warning.stale', { days: 30 })).toBe('No post for over 30 days');
  });

  it('the formatter: exact forms, placeholders inside a branch, a missing count left visible', () => {
    const template = 'A {n, plural, =0 {none} one {# thing in {where}} other {# things in {where}}}.';
    expect(selectPlurals('en', template, { n: 0 })).toBe('A none.');
    expect(selectPlurals('en', template, { n: 1 })).toBe('A {n} thing in {where}.');
    expect(selectPlurals('en', template, {})).toBe(template);
    expect(pluralVariants(template)).toEqual(['A none.', 'A {n} thing in {where}.', 'A {n} things in {where}.']);
  });
});

describe('the playground', () => {
  it("the Spanish note after the demo set its key does not quote the bot's English answer", () => {
    const source = readFileSync('packages/playground/src/demo.ts', 'utf8');
    const spanish = [...source.matchAll(/^\s*es: `(.*)`,$/gm)].map((m) => m[1]!).filter((text) => text.includes('/clave-api establecer como Ana'));
    expect(spanish).toHaveLength(1);
    expect(spanish[0]).not.toContain('${autoKey.answer}');
  });
});

describe('command definitions', () => {
  it('name no locale themselves: src/i18n/localize.ts sets every locale the catalogues serve', () => {
    const files = readdirSync('commands', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const source = readFileSync(`commands/${f}`, 'utf8');
      expect({ f, locales: source.match(/['"](?:en|es)-[A-Z0-9]+['"]|\bLocale\.\w+|Localizations\(\{/g) }).toEqual({ f, locales: null });
    }
  });
});

describe('language choice', () => {
  it.each([
    ['es-ES', 'es'],
    ['es-419', 'es'],
    ['en-US', 'en'],
    ['en-GB', 'en'],
    ['fr', 'en'],
    [undefined, 'en'],
  ])('%s → %s', (locale, lang) => expect(langFor(locale)).toBe(lang));

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(t('en', 'error.notFound', { id: 3 })).toBe('Feed #3 does not exist in this server.');
    expect(t('es', 'error.notFound', {})).toBe('El feed #{id} no existe en este servidor.');
  });
});
