/**
 * The page's own dialogs (creating or deleting a channel), drawn like Discord's: a title, the
 * body, Cancel and one action button. A native <dialog> keeps focus inside and closes on Escape.
 */
import { el, icon } from './dom.js';
import { tr } from './i18n.js';

/**
 * Shows a dialog in `host`. `onConfirm()` may return a promise: the dialog stays open (its button
 * busy) until it settles, and shows the error if it rejects. `canConfirm()` gates the button.
 */
export function openDialog({ host, lang, title, subtitle, body, confirmLabel, danger = false, testId, onConfirm, canConfirm = () => true }) {
  const error = el('div', { class: 'dialog-error', role: 'alert' });
  const close = el('button', { type: 'button', class: 'modal-close', 'aria-label': tr(lang, 'modal.close') }, [icon('close', 24)]);
  const cancel = el('button', { type: 'button', class: 'modal-cancel' }, [tr(lang, 'modal.cancel')]);
  const confirm = el('button', { type: 'submit', class: danger ? 'modal-submit danger' : 'modal-submit', 'data-testid': `${testId}-confirm` }, [confirmLabel]);
  const form = el('form', { class: 'modal-form', novalidate: true }, [
    el('header', { class: 'modal-header dialog-header' }, [el('div', {}, [el('h2', { class: 'modal-title' }, [title]), subtitle ? el('div', { class: 'dialog-subtitle' }, [subtitle]) : null]), close]),
    el('div', { class: 'modal-fields dialog-body' }, [...body, error]),
    el('footer', { class: 'modal-actions' }, [cancel, confirm]),
  ]);
  const dialog = el('dialog', { class: 'modal-dialog', 'data-testid': testId }, [form]);
  const update = () => (confirm.disabled = !canConfirm());
  form.addEventListener('input', update);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!canConfirm()) return;
    confirm.disabled = true;
    error.textContent = '';
    try {
      await onConfirm();
      dialog.close();
    } catch (failure) {
      error.textContent = failure.message;
      update();
    }
  });
  for (const button of [close, cancel]) button.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  host.append(dialog);
  update();
  dialog.showModal();
  return dialog;
}
