/**
 * A message's files as Discord shows them: one card per attachment with the file's icon, its
 * name as a link, its size and a download button. Links point at the playground server, which
 * serves the emulator's copy as a download (the page never reaches the emulator itself).
 */
import { el, icon } from './dom.js';
import { LOCALE_OF, tr } from './i18n.js';

const UNITS = ['bytes', 'KB', 'MB', 'GB'];

/** "1.07 KB", as Discord writes sizes (binary kilobytes, up to two decimals, the client's digits). */
export function fileSize(bytes, lang) {
  let value = Number(bytes) || 0;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = new Intl.NumberFormat(LOCALE_OF[lang], { maximumFractionDigits: unit === 0 ? 0 : 2 }).format(value);
  return `${digits} ${UNITS[unit]}`;
}

function card(attachment, ctx) {
  const href = ctx.link(attachment.url);
  const name = attachment.filename;
  const label = tr(ctx.lang, 'attachment.download', { name });
  return el('div', { class: 'attachment', 'data-testid': 'attachment', 'data-filename': name }, [
    icon('file', 40, 'attachment-icon'),
    el('div', { class: 'attachment-inner' }, [
      el('a', { class: 'attachment-name', href, download: name, title: name }, [name]),
      el('div', { class: 'attachment-size' }, [fileSize(attachment.size, ctx.lang)]),
    ]),
    el('a', { class: 'attachment-download', href, download: name, title: label, 'aria-label': label }, [icon('download', 24)]),
  ]);
}

/** The cards of `message`'s attachments, for the message's `attachments` slot; null when it has none. */
export function renderAttachments(message, ctx) {
  const files = message.attachments ?? [];
  if (!files.length) return null;
  return el('div', { class: 'attachments', slot: 'attachments' }, files.map((a) => card(a, ctx)));
}
