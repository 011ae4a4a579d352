/* global document, Event */
/**
 * A select menu as Discord's client draws one, in a message or in a modal's Label: a box showing
 * what is picked (or the placeholder) that opens a list with a search box over the options'
 * labels, descriptions and emoji. String selects (3) offer their options; channel selects (8) the
 * server's channels of the types `channel_types` names; role selects (6) its roles but @everyone;
 * user (5) and mentionable (7) selects its members (and roles). Defaults come preselected;
 * min_values/max_values bound the picks.
 *
 * In a message a pick is sent as soon as it is made (one value), or when the list closes
 * (several values: Escape, a click outside or on the box), as Discord's client does. In a modal
 * the picks are kept for the form's submit. A select that takes no value at all (min_values 0,
 * or not required in a modal) can be emptied: its × clears it, and picking the one picked value
 * again unpicks it; in a message the empty pick is sent like any other.
 *
 * Keyboard: Enter, Space or ↓ on the box opens the list with the search box focused; ↑/↓ move
 * through the options shown, Enter picks, Escape or Tab closes.
 */
import { el, icon } from './dom.js';
import { tr } from './i18n.js';

export const SELECT_TYPES = new Set([3, 5, 6, 7, 8]);

let nextId = 0;

/** The icon Discord shows before a channel's name, by channel type. */
export const channelMark = (type) => (type === 2 || type === 13 ? '🔊' : type === 4 ? '▾' : type === 5 ? '📢' : '#');

/**
 * A pick as the select's box shows it: a member or role with its @ ("@Admin"), a channel with its
 * icon apart from its name ("📢 announcements", as in the list), a text channel by its name alone.
 */
function pickedLabel(choice) {
  if (!choice.mark || choice.mark === '#') return choice.label;
  return choice.mark === '@' ? `@${choice.label}` : `${choice.mark} ${choice.label}`;
}

/** What select `component` offers, from its options or from the server (`info`: /api/state). */
export function selectChoices(component, info) {
  const defaults = new Set((component.default_values ?? []).map((d) => String(d.id)));
  const roles = () =>
    info.roles.filter((r) => r.id !== info.guild.id).map((r) => ({ value: r.id, label: r.name.replace(/^@/, ''), mark: '@', default: defaults.has(r.id) }));
  const members = () => info.members.map((m) => ({ value: m.id, label: m.name, mark: '@', default: defaults.has(m.id) }));
  switch (component.type) {
    case 3:
      return (component.options ?? []).map((o) => ({ value: o.value, label: o.label, description: o.description, emoji: o.emoji?.name, default: o.default === true }));
    case 8: {
      const types = component.channel_types?.length ? component.channel_types : null;
      const all = info.allChannels ?? info.channels;
      const category = (id) => all.find((c) => c.id === id)?.name;
      return all
        .filter((c) => (types ? types.includes(c.type) : true))
        .map((c) => ({ value: c.id, label: c.name, mark: channelMark(c.type), description: category(c.parentId), default: defaults.has(c.id) }));
    }
    case 6:
      return roles();
    case 5:
      return members();
    default:
      return [...members(), ...roles()];
  }
}

/** How many values the select takes: in a modal, one that is not required may be left empty. */
export function selectBounds(component, inModal) {
  const max = component.max_values ?? 1;
  const min = inModal && component.required === false ? 0 : (component.min_values ?? 1);
  return { min, max };
}

/** Lower case without accents, so "medios" finds "Médios" and "MEDIA" finds "media". */
const fold = (text) =>
  String(text ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();

/**
 * The select's element and what is picked. `onCommit(values)` (messages only) runs when picks are
 * to be sent; `labelledBy` names the element labelling it (a modal's Label).
 */
export function renderSelect(component, { lang, info, inModal = false, labelledBy, onCommit = () => undefined }) {
  const id = `select-${++nextId}`;
  const choices = selectChoices(component, info);
  const { min, max } = selectBounds(component, inModal);
  const multi = max > 1;
  let picked = choices.filter((c) => c.default).map((c) => c.value);
  let committed = [...picked];
  let active = -1;
  const placeholder = component.placeholder ?? tr(lang, 'select.placeholder');

  const trigger = el('button', {
    type: 'button',
    class: 'select-trigger',
    role: 'combobox',
    'aria-haspopup': 'listbox',
    'aria-expanded': 'false',
    'aria-controls': `${id}-list`,
    'aria-labelledby': labelledBy,
    'aria-label': labelledBy ? undefined : placeholder,
    disabled: Boolean(component.disabled),
  });
  const search = el('input', {
    type: 'search',
    class: 'select-search',
    placeholder: tr(lang, 'select.search'),
    'aria-label': tr(lang, 'select.search'),
    'aria-controls': `${id}-list`,
    'aria-autocomplete': 'list',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const options = choices.map((c, i) =>
    el('div', { role: 'option', id: `${id}-o${i}`, class: 'select-option', 'data-value': c.value, 'aria-selected': 'false' }, [
      c.emoji ? el('span', { class: 'select-emoji', 'aria-hidden': 'true' }, [c.emoji]) : null,
      c.mark ? el('span', { class: 'select-mark', 'aria-hidden': 'true' }, [c.mark]) : null,
      el('span', { class: 'select-text' }, [el('span', { class: 'select-label' }, [c.label]), c.description ? el('small', { class: 'select-description' }, [c.description]) : null]),
      multi ? el('span', { class: 'select-check', 'aria-hidden': 'true' }) : null,
    ]),
  );
  const list = el('div', { role: 'listbox', id: `${id}-list`, class: 'select-list', 'aria-multiselectable': multi ? 'true' : undefined, 'aria-label': placeholder }, options);
  const empty = el('div', { class: 'select-empty', hidden: true }, [tr(lang, 'select.noResults')]);
  const hint = multi ? el('div', { class: 'select-hint' }) : null;
  const popup = el('div', { class: 'select-popup', hidden: true }, [search, hint, list, empty]);
  // Beside the box, not in it: a button cannot hold another.
  const clear = el('button', { type: 'button', class: 'select-clear', 'aria-label': tr(lang, 'select.clear'), title: tr(lang, 'select.clear'), hidden: true }, [icon('close', 14)]);
  const node = el('div', { class: 'select', 'data-testid': 'select', 'data-custom-id': component.custom_id, 'data-type': component.type }, [trigger, clear, popup]);

  const shown = () => options.filter((o) => !o.hidden);

  function draw() {
    const labels = choices.filter((c) => picked.includes(c.value)).map(pickedLabel);
    trigger.replaceChildren(
      el('span', { class: labels.length ? 'select-value' : 'select-placeholder' }, [labels.length ? labels.join(', ') : placeholder]),
      el('span', { class: 'select-arrow', 'aria-hidden': 'true' }, ['▾']),
    );
    clear.hidden = min > 0 || picked.length === 0 || Boolean(component.disabled);
    node.classList.toggle('clearable', !clear.hidden);
    const full = picked.length >= max;
    options.forEach((o, i) => {
      const on = picked.includes(choices[i].value);
      o.setAttribute('aria-selected', String(on));
      // Discord greys out the rest once max_values are picked.
      if (multi && full && !on) o.setAttribute('aria-disabled', 'true');
      else o.removeAttribute('aria-disabled');
      o.classList.toggle('active', i === active);
    });
    if (hint) hint.textContent = tr(lang, 'select.count', { n: picked.length, max });
    if (active >= 0) search.setAttribute('aria-activedescendant', options[active].id);
    else search.removeAttribute('aria-activedescendant');
  }

  function filter() {
    const q = fold(search.value.trim());
    choices.forEach((c, i) => {
      options[i].hidden = q !== '' && ![c.label, c.description, c.emoji].some((t) => fold(t).includes(q));
    });
    const visible = shown();
    empty.hidden = visible.length > 0;
    active = visible.length ? options.indexOf(visible[0]) : -1;
    draw();
  }

  const isOpen = () => !popup.hidden;

  function outside(event) {
    if (!node.contains(event.target)) close();
  }

  function open() {
    if (component.disabled || isOpen()) return;
    popup.hidden = false;
    trigger.setAttribute('aria-expanded', 'true');
    search.value = '';
    filter();
    document.addEventListener('mousedown', outside, true);
    search.focus();
  }

  /** Closes the list and commits its picks. */
  function close({ focus = false } = {}) {
    if (!isOpen()) return;
    popup.hidden = true;
    trigger.setAttribute('aria-expanded', 'false');
    document.removeEventListener('mousedown', outside, true);
    if (focus) trigger.focus();
    commit();
  }

  /** In a message, sends the picks if they changed and are allowed; in a modal, keeps them for the submit. */
  function commit() {
    if (inModal) return draw();
    const changed = picked.length !== committed.length || picked.some((v) => !committed.includes(v));
    if (changed && picked.length >= min && picked.length <= max) {
      committed = [...picked];
      draw();
      onCommit([...picked], trigger.textContent.replace('▾', '').trim());
    } else {
      // Too few picked: as Discord's client, nothing is sent and the last picks come back.
      picked = [...committed];
      draw();
    }
  }

  /** The visitor's picks are now `next`: the select fires `change` (a modal's Label checks itself again). */
  function pick(next) {
    const changed = next.length !== picked.length || next.some((v) => !picked.includes(v));
    picked = next;
    if (changed) node.dispatchEvent(new Event('change', { bubbles: true }));
  }

  function choose(index) {
    if (index < 0) return;
    const value = choices[index].value;
    if (!multi) {
      pick(min === 0 && picked.includes(value) ? [] : [value]);
      return close({ focus: true });
    }
    if (picked.includes(value)) pick(picked.filter((v) => v !== value));
    else if (picked.length < max) pick(choices.map((c) => c.value).filter((v) => v === value || picked.includes(v)));
    active = index;
    draw();
  }

  trigger.addEventListener('click', () => (isOpen() ? close() : open()));
  clear.addEventListener('click', () => {
    pick([]);
    if (isOpen()) return close({ focus: true });
    trigger.focus();
    commit();
  });
  trigger.addEventListener('keydown', (event) => {
    if (['Enter', ' ', 'ArrowDown'].includes(event.key) && !isOpen()) {
      event.preventDefault();
      open();
    }
  });
  search.addEventListener('input', filter);
  search.addEventListener('keydown', (event) => {
    const visible = shown();
    const at = visible.indexOf(options[active]);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!visible.length) return;
      const next = event.key === 'ArrowDown' ? Math.min(at + 1, visible.length - 1) : Math.max(at - 1, 0);
      active = options.indexOf(visible[next]);
      draw();
      options[active].scrollIntoView({ block: 'nearest' });
    } else if (event.key === 'Enter') {
      // Inside a modal's form, Enter must not submit it.
      event.preventDefault();
      choose(active);
    } else if (event.key === 'Escape') {
      // Inside a modal's <dialog>, Escape closes the list, not the form.
      event.preventDefault();
      event.stopPropagation();
      close({ focus: true });
    } else if (event.key === 'Tab') {
      close();
    }
  });
  options.forEach((o, i) => {
    // Keep the focus in the search box while clicking options.
    o.addEventListener('mousedown', (event) => event.preventDefault());
    o.addEventListener('click', () => {
      if (o.getAttribute('aria-disabled') === 'true') return;
      choose(i);
    });
  });
  draw();

  return {
    node,
    values: () => [...picked],
    /** The complaint about the picks ('' when they are fine), for a modal's submit. */
    problem: () => (picked.length < min ? (min === 1 ? tr(lang, 'field.required') : tr(lang, 'field.pickAtLeast', { min })) : ''),
    focus: () => trigger.focus(),
  };
}
