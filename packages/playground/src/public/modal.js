/**
 * A bot's form (an interaction's modal), drawn by the page: the renderer's <discord-modal> has its
 * buttons, warning and field checks in English only. A native <dialog> keeps focus inside and
 * closes on Escape; required and minimum-length checks speak the client's language.
 */
import { el, icon } from './dom.js';
import { tr } from './i18n.js';

/** The text inputs of a modal: in Label components (type 18) or, the older way, in action rows. */
function textInputs(components) {
  const out = [];
  for (const c of components ?? []) {
    if (c.type === 18 && c.component?.type === 4) out.push({ ...c.component, label: c.label, description: c.description });
    else if (c.type === 1) for (const inner of c.components ?? []) if (inner.type === 4) out.push(inner);
  }
  return out;
}

function field(input, lang) {
  const control = el(input.style === 2 ? 'textarea' : 'input', {
    type: input.style === 2 ? undefined : 'text',
    rows: input.style === 2 ? 4 : undefined,
    minlength: input.min_length,
    maxlength: input.max_length ?? 4000,
    placeholder: input.placeholder,
    'data-custom-id': input.custom_id,
  });
  if (input.value) control.value = input.value;
  const error = el('span', { class: 'modal-error', role: 'alert' });
  const required = input.required !== false;
  const node = el('label', { class: 'modal-field' }, [
    el('span', { class: 'modal-label' }, [input.label ?? input.custom_id, required ? el('span', { class: 'modal-required' }, ['*']) : null]),
    input.description ? el('span', { class: 'modal-description' }, [input.description]) : null,
    error,
    control,
  ]);
  /** The field's complaint ('' when it is fine), shown next to its label. */
  const check = () => {
    const value = control.value;
    const problem =
      required && !value.trim() ? tr(lang, 'field.required') : input.min_length && value.length < input.min_length ? tr(lang, 'field.tooShort', { min: input.min_length }) : '';
    error.textContent = problem;
    node.classList.toggle('invalid', Boolean(problem));
    return problem;
  };
  return { node, control, check };
}

/** "This form will be submitted to <bot>. …" with the bot's name in bold. */
function warning(lang, botName) {
  const [before, after] = tr(lang, 'modal.warning').split('{bot}');
  return el('div', { class: 'modal-warning' }, [icon('warning', 24), el('p', {}, [before, el('strong', {}, [botName]), after])]);
}

/**
 * Shows `form` ({ title, components }) from `bot` ({ username, avatar }) in `host`. `onSubmit(values)`
 * runs once every field passes its checks, `onCancel()` when the form closes without being sent.
 */
export function openModal({ form, bot, lang, host, onSubmit, onCancel }) {
  const fields = textInputs(form.components).map((input) => field(input, lang));
  const close = el('button', { type: 'button', class: 'modal-close', 'aria-label': tr(lang, 'modal.close') }, [icon('close', 24)]);
  const cancel = el('button', { type: 'button', class: 'modal-cancel' }, [tr(lang, 'modal.cancel')]);
  const body = el('form', { class: 'modal-form', novalidate: true }, [
    el('header', { class: 'modal-header' }, [el('img', { class: 'modal-avatar', src: bot.avatar, alt: '' }), el('h2', { class: 'modal-title', id: 'modal-title' }, [form.title]), close]),
    warning(lang, bot.username),
    el('div', { class: 'modal-fields' }, fields.map((f) => f.node)),
    el('footer', { class: 'modal-actions' }, [cancel, el('button', { type: 'submit', class: 'modal-submit' }, [tr(lang, 'modal.submit')])]),
  ]);
  const dialog = el('dialog', { class: 'modal-dialog', 'data-testid': 'modal', 'aria-labelledby': 'modal-title' }, [body]);
  let submitted = false;
  body.addEventListener('submit', (event) => {
    event.preventDefault();
    const failing = fields.filter((f) => f.check() !== '');
    if (failing.length) return failing[0].control.focus();
    submitted = true;
    onSubmit(Object.fromEntries(fields.map((f) => [f.control.dataset.customId, f.control.value])));
    dialog.close();
  });
  for (const button of [close, cancel]) button.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (!submitted) onCancel();
  });
  host.append(dialog);
  dialog.showModal();
  fields[0]?.control.focus();
}
