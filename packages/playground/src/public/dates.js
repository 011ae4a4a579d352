/**
 * Dates as a Discord client in English or Spanish shows them: a message's time ("Today at 10:32
 * AM" / "hoy a las 10:32") and the `<t:unix:style>` markup.
 */
import { LOCALE_OF, tr } from './i18n.js';

function sameDay(a, b) {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** "Today at 10:32 AM" / "hoy a las 10:32", or the date for older messages, as Discord shows them. */
export function messageTime(date, lang) {
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

/** Discord's `<t:unix:style>` markup, rendered in the client's language. */
export function discordTimestamp(unix, style, lang) {
  const locale = LOCALE_OF[lang];
  const date = new Date(unix * 1000);
  switch (style) {
    case 't':
      return new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(date);
    case 'T':
      return new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }).format(date);
    case 'd':
      return new Intl.DateTimeFormat(locale, { dateStyle: 'short' }).format(date);
    case 'D':
      return new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(date);
    case 'F':
      return new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short' }).format(date);
    case 'R': {
      const diff = (unix * 1000 - Date.now()) / 1000;
      const [unit, seconds] = RELATIVE_UNITS.find(([, s]) => Math.abs(diff) >= s) ?? ['second', 1];
      return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(Math.round(diff / seconds), unit);
    }
    case 'f':
    default:
      return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(date);
  }
}
