/**
 * Text the API wrote itself (`mensaje`, error messages) is in the API's language, not the user's.
 * Every sentence a user reads comes from our catalogues; the API's words may only follow one, as a
 * quoted detail, and only where they add something the user can act on.
 */
import type { Translator } from '../i18n/index.js';
import { apiText } from './markdown.js';
import { plain } from './text.js';

/** Longest API text quoted: a detail, not a second message. */
const API_QUOTE_MAX = 300;

/** `The API says: “…”` in the user's language, or '' when the API sent nothing readable. */
export function quotedApiText(t: Translator, text: string | undefined): string {
  const clean = plain(text ?? '').replace(/\s+/g, ' ').trim();
  return clean === '' ? '' : t('api.says', { message: apiText(clean, { max: API_QUOTE_MAX }) });
}
