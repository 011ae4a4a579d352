/**
 * A bot's form (an interaction's modal), drawn by the page: the renderer's <discord-modal> has its
 * buttons, warning and field checks in English only. A native <dialog> keeps focus inside and
 * closes on Escape; required, minimum-length and pick-count checks speak the client's language.
 *
 * Fields are Labels (type 18: a label and a description around one component) or, the older way,
 * action rows holding a text input. A Label holds a text input (4), a select (3, 5–8: selects.js),
 * a checkbox group (22), a radio group (21) or a checkbox (23); what is sent is, by custom_id, the
 * text, the picked values, the chosen radio's value or the checkbox's true/false.
 */
import { el, icon } from './dom.js';
import { tr } from './i18n.js';
import { SELECT_TYPES, renderSelect } from './selects.js';

let nextLabel = 0;

/** The fields of a modal, in order: `{ component, label, description }` (label undefined in an action row). */
function fieldsOf(components) {
  const out = [];
  for (const c of components ?? []) {
    if (c.type === 18 && c.component) out.push({ component: c.component, label: c.label, description: c.description });
    else if (c.type === 1) for (const inner of c.components ?? []) if (inner.type === 4) out.push({ component: inner, label: inner.label });
  }
  return out;
}

/** The label line: its text, a star when the field must be filled, its description, its complaint. */
function labelParts(id, label, description, required) {
  const error = el('span', { class: 'modal-error', role: 'alert' });
  return {
    error,
    parts: [
      el('span', { class: 'modal-label', id }, [label, required ? el('span', { class: 'modal-required', 'aria-hidden': 'true' }, ['*']) : null]),
      description ? el('span', { class: 'modal-description' }, [description]) : null,
      error,
    ],
  };
}

/**
 * Wires a field's complaint to its element: `problem()` returns '' when the field is fine. Once
 * the field has complained (a submit), it is checked again as it changes, as a form's fields are:
 * the complaint goes as soon as the field holds what it needs, and follows what is typed.
 */
function checked(node, error, problem) {
  const check = () => {
    const text = problem();
    error.textContent = text;
    node.classList.toggle('invalid', Boolean(text));
    return text;
  };
  const recheck = () => {
    if (error.textContent) check();
  };
  // Typing fires input; a ticked box and a select's picks (selects.js) fire change.
  node.addEventListener('input', recheck);
  node.addEventListener('change', recheck);
  return check;
}

function textField({ component: input, label, description }, lang) {
  const control = el(input.style === 2 ? 'textarea' : 'input', {
    type: input.style === 2 ? undefined : 'text',
    rows: input.style === 2 ? 4 : undefined,
    minlength: input.min_length,
    maxlength: input.max_length ?? 4000,
    placeholder: input.placeholder,
    'data-custom-id': input.custom_id,
  });
  if (input.value) control.value = input.value;
  const required = input.required !== false;
  const { error, parts } = labelParts(`modal-label-${++nextLabel}`, label ?? input.custom_id, description, required);
  const node = el('label', { class: 'modal-field' }, [...parts, control]);
  const check = checked(node, error, () => {
    const value = control.value;
    return required && !value.trim() ? tr(lang, 'field.required') : input.min_length && value.length < input.min_length ? tr(lang, 'field.tooShort', { min: input.min_length }) : '';
  });
  return { customId: input.custom_id, node, check, focus: () => control.focus(), value: () => control.value };
}

function selectField({ component, label, description }, lang, info) {
  const id = `modal-label-${++nextLabel}`;
  const select = renderSelect(component, { lang, info, inModal: true, labelledBy: id });
  const { error, parts } = labelParts(id, label ?? component.custom_id, description, component.required !== false);
  const node = el('div', { class: 'modal-field' }, [...parts, select.node]);
  return { customId: component.custom_id, node, check: checked(node, error, select.problem), focus: select.focus, value: select.values };
}

/** A checkbox group (22) or radio group (21): one box per option, bounded like Discord's client. */
function choiceGroup({ component, label, description }, lang) {
  const id = `modal-label-${++nextLabel}`;
  const radio = component.type === 21;
  const required = component.required !== false;
  const max = radio ? 1 : (component.max_values ?? component.options.length);
  const min = !required ? 0 : radio ? 1 : (component.min_values ?? 1);
  const boxes = component.options.map((o) =>
    el('input', { type: radio ? 'radio' : 'checkbox', name: `${id}-${component.custom_id}`, value: o.value, checked: o.default === true }),
  );
  const rows = component.options.map((o, i) =>
    el('label', { class: 'modal-choice' }, [boxes[i], el('span', { class: 'modal-choice-text' }, [o.label, o.description ? el('small', {}, [o.description]) : null])]),
  );
  const { error, parts } = labelParts(id, label ?? component.custom_id, description, required);
  const group = el('div', { class: 'modal-choices', role: radio ? 'radiogroup' : 'group', 'aria-labelledby': id }, rows);
  const node = el('div', { class: 'modal-field' }, [...parts, group]);
  const picked = () => boxes.filter((b) => b.checked).map((b) => b.value);
  // Once max_values are ticked, the other boxes cannot be.
  const bound = () => {
    if (radio) return;
    const full = picked().length >= max;
    for (const b of boxes) b.disabled = full && !b.checked;
  };
  for (const b of boxes) b.addEventListener('change', bound);
  bound();
  const check = checked(node, error, () => (picked().length >= min ? '' : min === 1 ? tr(lang, 'field.required') : tr(lang, 'field.pickAtLeast', { min })));
  const value = () => (radio ? picked()[0] : picked());
  return { customId: component.custom_id, node, check, focus: () => boxes[0]?.focus(), value, omitWhenEmpty: radio };
}

/** A single checkbox (23): its Label is the box's name; it sends true or false. */
function checkboxField({ component, label, description }) {
  const id = `modal-label-${++nextLabel}`;
  const box = el('input', { type: 'checkbox', 'aria-labelledby': id, checked: component.default === true });
  const node = el('div', { class: 'modal-field modal-checkbox' }, [
    el('label', { class: 'modal-choice' }, [box, el('span', { class: 'modal-choice-text' }, [el('span', { class: 'modal-label', id }, [label ?? component.custom_id]), description ? el('small', {}, [description]) : null])]),
  ]);
  return { customId: component.custom_id, node, check: () => '', focus: () => box.focus(), value: () => box.checked };
}

function field(entry, lang, info) {
  const type = entry.component.type;
  if (type === 4) return textField(entry, lang);
  if (SELECT_TYPES.has(type)) return selectField(entry, lang, info);
  if (type === 21 || type === 22) return choiceGroup(entry, lang);
  if (type === 23) return checkboxField(entry);
  return null;
}

/** "This form will be submitted to <bot>. …" with the bot's name in bold. */
function warning(lang, botName) {
  const [before, after] = tr(lang, 'modal.warning').split('{bot}');
  return el('div', { class: 'modal-warning' }, [icon('warning', 24), el('p', {}, [before, el('strong', {}, [botName]), after])]);
}

/**
 * Shows `form` ({ title, components }) from `bot` ({ username, avatar }) in `host`; `info` is
 * /api/state (what selects offer). `onSubmit(values)` runs once every field passes its checks,
 * `onCancel()` when the form closes without being sent.
 */
export function openModal({ form, bot, lang, host, info, onSubmit, onCancel }) {
  const fields = fieldsOf(form.components)
    .map((entry) => field(entry, lang, info))
    .filter(Boolean);
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
    if (failing.length) return failing[0].focus();
    submitted = true;
    // A radio group left empty sends nothing for it, as Discord's client does.
    const sent = fields.filter((f) => !(f.omitWhenEmpty && f.value() === undefined));
    onSubmit(Object.fromEntries(sent.map((f) => [f.customId, f.value()])));
    dialog.close();
  });
  for (const button of [close, cancel]) button.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (!submitted) onCancel();
  });
  host.append(dialog);
  dialog.showModal();
  fields[0]?.focus();
}
