/**
 * Dates as a Discord client in English or Spanish shows them: a message's time ("Today at 10:32
 * AM" / "hoy a las 10:32") and the `<t:unix:style>` markup. A date JavaScript cannot represent
 * (Intl throws "Invalid time value" on it) is reported as null, never thrown.
 */
import { LOCALE_OF, tr } from './i18n.js';

/** `value` (ms, ISO text or Date) as a Date, or null when it is no representable date. */
export function validDate(value) {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function sameDay(a, b) {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** "Today at 10:32 AM", or the date for older messages; '' for no valid date. */
export function messageTime(value, lang) {
  const date = validDate(value);
  if (!date) return '';
  const locale = LOCALE_OF[lang];
  const time = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(date);
  const now = new Date();
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (sameDay(date, now)) return tr(lang, 'time.today', { time });
  if (sameDay(date, yesterday)) return tr(lang, 'time.yesterday', { time });
  return `${new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric' }).format(date)} ${time}`;
}

const RELATIVE_UNITS = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

const STYLES = {
  t: { timeStyle: 'short' },
  T: { timeStyle: 'medium' },
  d: { dateStyle: 'short' },
  D: { dateStyle: 'long' },
  f: { dateStyle: 'long', timeStyle: 'short' },
  F: { dateStyle: 'full', timeStyle: 'short' },
};

/** Discord's `<t:unix:style>` markup in the client's language; null when `unix` is out of range. */
export function discordTimestamp(unix, style, lang) {
  const date = validDate(unix * 1000);
  if (!date) return null;
  const locale = LOCALE_OF[lang];
  if (style === 'R') {
    const diff = (date.getTime() - Date.now()) / 1000;
    const [unit, seconds] = RELATIVE_UNITS.find(([, s]) => Math.abs(diff) >= s) ?? ['second', 1];
    return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(Math.round(diff / seconds), unit);
  }
  return new Intl.DateTimeFormat(locale, STYLES[style] ?? STYLES.f).format(date);
}

/** The full date and time of a `<t:…>` for its tooltip, as Discord shows on hover. */
export function fullDate(unix, lang) {
  const date = validDate(unix * 1000);
  return date ? new Intl.DateTimeFormat(LOCALE_OF[lang], STYLES.F).format(date) : '';
}
