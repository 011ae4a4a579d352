/**
 * Message catalogues and the tiny formatter every user-visible string goes through.
 */
import { Locale } from 'discord.js';
import { en, type MessageKey } from './en.js';
import { es } from './es.js';

export type { MessageKey } from './en.js';
export type Lang = 'en' | 'es';
export type Vars = Record<string, string | number>;

export const catalogues: Record<Lang, Record<MessageKey, string>> = { en, es };

/** Discord locales that get the Spanish catalogue; everything else gets English. */
const SPANISH_LOCALES = new Set<string>([Locale.SpanishES, Locale.SpanishLATAM]);

export function langFor(locale: string | null | undefined): Lang {
  if (!locale) return 'en';
  return SPANISH_LOCALES.has(locale) || locale.toLowerCase().startsWith('es') ? 'es' : 'en';
}

export function t(lang: Lang, key: MessageKey, vars?: Vars): string {
  const template = catalogues[lang][key] ?? catalogues.en[key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}

export type Translator = (key: MessageKey, vars?: Vars) => string;

export function translator(lang: Lang): Translator {
  return (key, vars) => t(lang, key, vars);
}

/**
 * Localizations for command builders: the Spanish catalogue for es-ES and es-419 (Discord falls
 * back from es-419 to es-ES only in some clients, so both are set) and English for en-US/en-GB,
 * whose default names may be Spanish API words (option names follow the API's field names).
 */
export function localizations(key: MessageKey): Partial<Record<Locale, string>> {
  return {
    [Locale.EnglishUS]: en[key],
    [Locale.EnglishGB]: en[key],
    [Locale.SpanishES]: es[key],
    [Locale.SpanishLATAM]: es[key],
  };
}
