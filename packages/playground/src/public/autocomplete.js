/* global document, setTimeout, clearTimeout */
/**
 * Option fields whose suggestions come from the bot: each pause in typing sends an autocomplete
 * interaction, and the bot's choices fill the popup. A choice shows its name and sends its value.
 */
import { el } from './dom.js';
import { localized, tr } from './i18n.js';
import { hidePopup, popupEmpty, popupShows, showPopup } from './popup.js';

const PAUSE_MS = 150;

export class OptionSuggestions {
  /**
   * deps: { popup, getState() → { lang, locale }, choices(option, typed) → Promise<choices>,
   * onFocus(option) }
   */
  constructor(deps) {
    this.d = deps;
    this.timer = undefined;
    this.seq = 0;
  }

  /** Forgets suggestions still on their way: they belong to inputs that are gone. */
  cancel() {
    clearTimeout(this.timer);
    this.seq += 1;
  }

  /** The text field for `option`; `field.dataset.value` holds the value of a picked choice. */
  field(option, previous) {
    const { locale } = this.d.getState();
    const field = el('input', {
      name: option.name,
      'data-testid': `option-${option.name}`,
      type: 'text',
      role: 'combobox',
      'aria-autocomplete': 'list',
      placeholder: localized(option, 'description', locale),
    });
    if (previous !== undefined) {
      field.value = String(previous);
      field.dataset.value = String(previous);
    }
    const ask = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.suggest(option, field), PAUSE_MS);
    };
    field.addEventListener('focus', () => {
      this.d.onFocus(option);
      ask();
    });
    field.addEventListener('input', () => {
      delete field.dataset.value;
      ask();
    });
    field.addEventListener('keydown', (event) => this.keydown(event));
    return { wrapper: field, field, autocomplete: true };
  }

  keydown(event) {
    const popup = this.d.popup;
    if (event.key === 'Enter' && popupShows(popup, 'autocomplete')) {
      const first = popup.querySelector('.popup-item');
      if (first) {
        event.preventDefault();
        first.click();
      }
    } else if (event.key === 'Escape') {
      hidePopup(popup);
    }
  }

  async suggest(option, field) {
    const { lang } = this.d.getState();
    if (!field.isConnected || document.activeElement !== field) return;
    const seq = ++this.seq;
    const popup = this.d.popup;
    showPopup(popup, 'autocomplete', [popupEmpty(tr(lang, 'composer.autocomplete.loading'))]);
    let choices = [];
    try {
      choices = await this.d.choices(option, field.value);
    } catch {
      choices = [];
    }
    if (seq !== this.seq) return;
    if (document.activeElement !== field) return hidePopup(popup);
    const items = choices.map((choice) => {
      const item = el('button', { type: 'button', role: 'option', class: 'popup-item', 'data-choice': String(choice.value) }, [el('span', { class: 'popup-name' }, [choice.name])]);
      // mousedown, not click: the field must not lose the choice to its blur.
      item.addEventListener('mousedown', (event) => event.preventDefault());
      item.addEventListener('click', () => {
        field.value = choice.name;
        field.dataset.value = String(choice.value);
        hidePopup(popup);
      });
      return item;
    });
    showPopup(popup, 'autocomplete', items.length ? items : [popupEmpty(tr(lang, 'composer.autocomplete.empty'))]);
  }
}
