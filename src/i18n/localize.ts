/**
 * Localizations for the command definitions sent to Discord, for every locale the catalogues
 * serve (DISCORD_LOCALES) and, in the default language, for every other locale Discord has: the
 * one place that knows which locales exist.
 */
import { Locale, type APIApplicationCommandOptionChoice, type LocalizationMap } from 'discord.js';
import { DEFAULT_LANG, DISCORD_LOCALES, catalogues, translator, type Lang, type MessageKey, type Translator } from './index.js';

const LANGS = Object.keys(DISCORD_LOCALES) as Lang[];

/**
 * Discord locales no catalogue serves. Their clients read the default language (the README's
 * "everyone else in English"); without a localization of their own they would see a command's
 * base name, which for options is the API's Spanish word (`canal`, `cuenta`).
 */
const UNSERVED_LOCALES: readonly Locale[] = Object.values(Locale).filter((locale) => !LANGS.some((lang) => DISCORD_LOCALES[lang].includes(locale)));

/** A text that may be composed of several catalogue entries. */
type Text = MessageKey | ((t: Translator) => string);

function render(text: Text, lang: Lang): string {
  return typeof text === 'function' ? text(translator(lang)) : catalogues[lang][text];
}

function localizationMap(text: Text, langs: readonly Lang[]): LocalizationMap {
  const map: LocalizationMap = {};
  for (const lang of langs) for (const locale of DISCORD_LOCALES[lang]) map[locale] = render(text, lang);
  return map;
}

/**
 * Every Discord locale: the catalogues' own (the default language's too: a command or option name
 * defaults to its API word, `canal`, which English users should not see), and every other one in
 * the default language, so a French or German client sees English names beside English
 * descriptions rather than the Spanish base names. Discord counts only the longest localization
 * of a field against a command's 8000 characters, so these copies cost none of that budget.
 */
function localizations(text: Text): LocalizationMap {
  const map = localizationMap(text, LANGS);
  const fallback = render(text, DEFAULT_LANG);
  for (const locale of UNSERVED_LOCALES) map[locale] = fallback;
  return map;
}

interface Localizable {
  setNameLocalizations(map: LocalizationMap): unknown;
  setDescription(description: string): unknown;
  setDescriptionLocalizations(map: LocalizationMap): unknown;
}

/**
 * Sets a builder's description (default language) and the localizations of its name and
 * description: `localize(o.setName('canal'), { name: 'opt.canal.name', description: '…' })`.
 */
export function localize<B extends Localizable>(builder: B, keys: { name?: MessageKey; description: MessageKey }): B {
  if (keys.name) builder.setNameLocalizations(localizations(keys.name));
  builder.setDescription(render(keys.description, DEFAULT_LANG));
  builder.setDescriptionLocalizations(localizations(keys.description));
  return builder;
}

/**
 * A choice named in the default language, localized for the other catalogues' locales (a choice
 * has no API word to hide, so the default language's locales are left to its name).
 */
export function localizedChoice<V extends string | number>(label: Text, value: V): APIApplicationCommandOptionChoice<V> {
  return {
    name: render(label, DEFAULT_LANG),
    name_localizations: localizationMap(
      label,
      LANGS.filter((lang) => lang !== DEFAULT_LANG),
    ),
    value,
  } as APIApplicationCommandOptionChoice<V>;
}

interface NameLocalizable {
  setName(name: string): unknown;
  setNameLocalizations(map: LocalizationMap): unknown;
}

/**
 * A context-menu command's name (ContextMenuCommandBuilder): the default language's text as the
 * name, localized for every locale as slash names are. Discord shows it as is (spaces and
 * capitals allowed, 1–32 characters) and a context-menu command has no description.
 */
export function localizeContextMenu<B extends NameLocalizable>(builder: B, name: Text): B {
  builder.setName(render(name, DEFAULT_LANG));
  builder.setNameLocalizations(localizations(name));
  return builder;
}
