/**
 * The popup above the composer: the command palette or an option's suggestions, one at a time
 * (`data-kind` says which).
 */
import { el } from './dom.js';

export function showPopup(popup, kind, children) {
  popup.dataset.kind = kind;
  popup.replaceChildren(...children);
  popup.hidden = false;
}

export function hidePopup(popup) {
  popup.hidden = true;
  popup.replaceChildren();
}

export const popupShows = (popup, kind) => !popup.hidden && popup.dataset.kind === kind;

export const popupEmpty = (text) => el('div', { class: 'popup-empty' }, [text]);
