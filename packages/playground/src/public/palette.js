/**
 * The command palette: while no command is picked, the search field lists the commands the acting
 * user may run (localized names, filtered by what is typed); arrows, Enter or Tab pick one.
 */
import { entryName } from './commands.js';
import { el } from './dom.js';
import { localized, tr } from './i18n.js';
import { hidePopup, popupEmpty, popupShows, showPopup } from './popup.js';

export class CommandPalette {
  /** deps: { search, popup, getState() → { lang, locale }, entries() → entries, onPick(entry) } */
  constructor(deps) {
    this.d = deps;
    this.highlight = 0;
  }

  matches() {
    const { locale } = this.d.getState();
    const q = this.d.search.value.trim().replace(/^\//, '').toLowerCase();
    return this.d.entries().filter((e) => !q || entryName(e, locale).toLowerCase().includes(q) || e.key.includes(q));
  }

  /** Lists the matches again; `fromStart` moves the highlight back to the first. */
  show(fromStart = false) {
    const { lang, locale } = this.d.getState();
    const list = this.matches();
    if (fromStart) this.highlight = 0;
    this.highlight = Math.min(this.highlight, Math.max(0, list.length - 1));
    const items = list.map((entry, i) => {
      const item = el('button', { type: 'button', role: 'option', class: `popup-item${i === this.highlight ? ' active' : ''}`, 'data-command': entry.key }, [
        el('img', { src: '/static/avatars/feedbot.svg', alt: '' }),
        el('span', { class: 'popup-name' }, [`/${entryName(entry, locale)}`]),
        el('span', { class: 'popup-desc' }, [localized(entry.sub ?? entry.command, 'description', locale)]),
      ]);
      item.addEventListener('click', () => this.d.onPick(entry));
      return item;
    });
    showPopup(this.d.popup, 'commands', list.length ? items : [popupEmpty(tr(lang, 'composer.noMatch'))]);
  }

  keydown(event) {
    if (!popupShows(this.d.popup, 'commands')) return;
    const list = this.matches();
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      this.highlight = (this.highlight + (event.key === 'ArrowDown' ? 1 : list.length - 1)) % Math.max(1, list.length);
      this.show();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      if (list[this.highlight]) {
        event.preventDefault();
        this.d.onPick(list[this.highlight]);
      }
    } else if (event.key === 'Escape') {
      hidePopup(this.d.popup);
    }
  }
}
