/**
 * Message catalogues and the tiny formatter every user-visible string goes through.
 */
import { Locale } from 'discord.js';
import { en, type MessageKey } from './en.js';
import { es } from './es.js';
import { selectPlurals } from './plural.js';

export type { MessageKey } from './en.js';
export type Lang = 'en' | 'es';
export type Vars = Record<string, string | number>;

export const catalogues: Record<Lang, Record<MessageKey, string>> = { en, es };

/**
 * The Discord locales each catalogue serves. Interactions in any other locale get English; command
 * localizations are set for exactly these (see localize.ts).
 */
export const DISCORD_LOCALES: Record<Lang, readonly Locale[]> = {
  en: [Locale.EnglishUS, Locale.EnglishGB],
  es: [Locale.SpanishES, Locale.SpanishLATAM],
};

/** The language whose text is a command's default name, description and choice names. */
export const DEFAULT_LANG: Lang = 'en';

export function langFor(locale: string | null | undefined): Lang {
  if (!locale) return DEFAULT_LANG;
  const lang = (Object.keys(DISCORD_LOCALES) as Lang[]).find((l) => DISCORD_LOCALES[l].includes(locale as Locale));
  if (lang) return lang;
  return locale.toLowerCase().startsWith('es') ? 'es' : DEFAULT_LANG;
}

/**
 * The sentence `key` in `lang`, its plural forms chosen (plural.ts: `{count, plural, one {…}
 * other {…}}`, by the language's plural rules) and its `{placeholders}` filled.
 */
export function t(lang: Lang, key: MessageKey, vars?: Vars): string {
  const template = selectPlurals(lang, catalogues[lang][key] ?? catalogues.en[key], vars);
  if (!vars) return template;
  let out = '';
  for (const part of compiled(template)) {
    if (typeof part === 'string') out += part;
    else out += Object.prototype.hasOwnProperty.call(vars, part.name) ? String(vars[part.name]) : `{${part.name}}`;
  }
  return out;
}

/**
 * A template cut once into its text and its `{placeholders}`: t() runs for every line of every
 * answer, and a regular expression per call was most of its cost (bench scenario 1). The
 * templates are the catalogues' sentences and their plural forms: a fixed, small set.
 */
const compiledTemplates = new Map<string, ReadonlyArray<string | { name: string }>>();

function compiled(template: string): ReadonlyArray<string | { name: string }> {
  let parts = compiledTemplates.get(template);
  if (parts) return parts;
  const cut: Array<string | { name: string }> = [];
  let from = 0;
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    if (m.index > from) cut.push(template.slice(from, m.index));
    cut.push({ name: m[1]! });
    from = m.index + m[0].length;
  }
  if (from < template.length) cut.push(template.slice(from));
  compiledTemplates.set(template, (parts = cut));
  return parts;
}

export type Translator = (key: MessageKey, vars?: Vars) => string;

export function translator(lang: Lang): Translator {
  return (key, vars) => t(lang, key, vars);
}
