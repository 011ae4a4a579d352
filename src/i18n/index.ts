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
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}

export type Translator = (key: MessageKey, vars?: Vars) => string;

export function translator(lang: Lang): Translator {
  return (key, vars) => t(lang, key, vars);
}
