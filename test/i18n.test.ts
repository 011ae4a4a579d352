import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en.js';
import { es } from '../src/i18n/es.js';
import { catalogues, langFor, t } from '../src/i18n/index.js';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

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
