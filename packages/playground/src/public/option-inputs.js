/* global document, getComputedStyle, DataTransfer, File */
/**
 * One input per command option, as Discord's composer offers them: choices, channels (of the
 * allowed types), members and roles as selects, booleans as True/False, numbers with their bounds,
 * text with its description, files picked from the visitor's disk, and bot-suggested values
 * (autocomplete.js). A text field is as wide as its description; one too long for the bar is left
 * to the hint line above it (fitPlaceholders).
 */
import { T } from './commands.js';
import { el } from './dom.js';
import { localized, tr } from './i18n.js';
import { channelMark } from './selects.js';

/**
 * state: { lang, locale, channels, members, roles }; `onFocus(option)` runs when the input gets
 * focus; `suggestions` builds autocomplete fields.
 */
export function optionInput(option, previous, state, { onFocus, suggestions }) {
  const { lang, locale, channels, members, roles } = state;
  const select = (choices) => selectInput(option, previous, choices, tr(lang, option.required ? 'composer.pickOne' : 'composer.none'), onFocus);
  if (option.choices?.length) return select(option.choices.map((c) => ({ name: localized(c, 'name', locale), value: c.value })));
  switch (option.type) {
    case T.CHANNEL: {
      const types = option.channel_types;
      // Each channel with its icon, apart from its name: "# news", "📢 announcements".
      return select(channels.filter((c) => !types?.length || types.includes(c.type)).map((c) => ({ name: `${channelMark(c.type)} ${c.name}`, value: c.id })));
    }
    case T.USER:
    case T.MENTIONABLE:
      return select(members.map((m) => ({ name: `@${m.name}`, value: m.id })));
    case T.ROLE:
      // @everyone already has its @.
      return select(roles.map((r) => ({ name: r.name.startsWith('@') ? r.name : `@${r.name}`, value: r.id })));
    case T.ATTACHMENT:
      return fileInput(option, previous, lang, onFocus);
    case T.BOOLEAN:
      return select([
        { name: tr(lang, 'composer.true'), value: 'true' },
        { name: tr(lang, 'composer.false'), value: 'false' },
      ]);
  }
  if (option.autocomplete) return suggestions.field(option, previous);
  return textInput(option, previous, locale, onFocus);
}

function selectInput(option, previous, choices, placeholder, onFocus) {
  const s = el('select', { name: option.name, 'data-testid': `option-${option.name}` });
  // Options are built by hand: an empty value attribute matters here.
  for (const c of [{ name: placeholder, value: '' }, ...choices]) {
    const o = document.createElement('option');
    o.value = String(c.value);
    o.textContent = c.name;
    s.append(o);
  }
  if (previous !== undefined && choices.some((c) => String(c.value) === String(previous))) s.value = String(previous);
  s.addEventListener('focus', () => onFocus(option));
  return s;
}

/**
 * A file picker: the native input (what a test's setInputFiles fills) under a label naming the
 * picked file. `previous` is a File kept across redraws. The field's `file` holds the pick.
 */
function fileInput(option, previous, lang, onFocus) {
  const field = el('input', { type: 'file', name: option.name, 'data-testid': `option-${option.name}`, class: 'file-field' });
  const label = el('span', { class: 'file-name' });
  const show = () => {
    const file = field.files?.[0];
    label.textContent = file ? file.name : tr(lang, 'composer.pickFile');
    label.classList.toggle('picked', Boolean(file));
  };
  if (previous instanceof File) {
    const picked = new DataTransfer();
    picked.items.add(previous);
    field.files = picked.files;
  }
  show();
  field.addEventListener('change', show);
  field.addEventListener('focus', () => onFocus(option));
  return { wrapper: el('span', { class: 'file-picker' }, [field, label]), field, file: true };
}

function textInput(option, previous, locale, onFocus) {
  const numeric = option.type === T.INTEGER || option.type === T.NUMBER;
  const bounded = [option.min_value, option.max_value].every((v) => v !== undefined);
  const input = el('input', {
    name: option.name,
    'data-testid': `option-${option.name}`,
    type: numeric ? 'number' : 'text',
    min: option.min_value,
    max: option.max_value,
    step: option.type === T.INTEGER ? 1 : numeric ? 'any' : undefined,
    minlength: option.min_length,
    maxlength: option.max_length,
    // Numbers show their bounds (Discord's own hint); text fields their description.
    placeholder: numeric ? (bounded ? `${option.min_value}–${option.max_value}` : '') : localized(option, 'description', locale),
    class: numeric ? 'numeric' : undefined,
  });
  if (previous !== undefined) input.value = String(previous);
  input.addEventListener('focus', () => onFocus(option));
  return input;
}

/** An option's value as the API takes it: numbers as numbers, booleans as booleans. */
export function optionValue(option, raw) {
  if (option.type === T.INTEGER || option.type === T.NUMBER) return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (option.type === T.BOOLEAN) return raw === 'true';
  return raw;
}

/** The widest a text field grows to show its whole description; a longer one goes to the hint line only. */
export const MAX_PLACEHOLDER_PX = 440;

let measuring;

/** How wide `text` is drawn in `input`'s font, in CSS pixels. */
function textWidth(input, text) {
  measuring ??= document.createElement('canvas').getContext('2d');
  const style = getComputedStyle(input);
  measuring.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return measuring.measureText(text).width;
}

/**
 * Fits the text fields in `container` (once drawn) to their placeholders, the options'
 * descriptions: a field grows to show the whole description, never cut; a description wider
 * than MAX_PLACEHOLDER_PX is no placeholder at all, since the hint line above the bar shows it
 * when the field has focus (and the chip's tooltip always), as Discord shows an option's
 * description above its composer.
 */
export function fitPlaceholders(container) {
  for (const input of container.querySelectorAll('input[placeholder]')) {
    const text = input.getAttribute('placeholder');
    if (!text) continue;
    const wide = textWidth(input, text);
    if (wide > MAX_PLACEHOLDER_PX) {
      input.removeAttribute('placeholder');
      continue;
    }
    const style = getComputedStyle(input);
    const edges = ['paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth'].reduce((sum, side) => sum + (parseFloat(style[side]) || 0), 0);
    // A few pixels spare: the caret, and rounding between the canvas and the field.
    const needed = Math.ceil(wide + edges + 4);
    if (needed > input.getBoundingClientRect().width) input.style.width = `${needed}px`;
  }
}
