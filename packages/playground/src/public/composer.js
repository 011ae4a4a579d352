/* global document, setTimeout, clearTimeout */
/**
 * The slash-command composer: pick a command (localized names, filtered by the acting user's
 * permissions like Discord's picker), then one input per option — choices as selects, channels
 * from the server, integer bounds, and autocomplete that asks the bot while you type.
 */
import { localized, tr } from './i18n.js';
import { el } from './render.js';

const T = { SUB: 1, GROUP: 2, STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10 };

/** Every runnable entry: a command, or each of its sub-commands (and sub-commands of groups). */
export function commandEntries(commands) {
  const entries = [];
  for (const command of commands) {
    if ((command.type ?? 1) !== 1) continue;
    const opts = command.options ?? [];
    const subs = opts.filter((o) => o.type === T.SUB);
    const groups = opts.filter((o) => o.type === T.GROUP);
    if (!subs.length && !groups.length) entries.push({ command, chain: [command], options: opts });
    for (const sub of subs) entries.push({ command, sub, chain: [command, sub], options: sub.options ?? [] });
    for (const group of groups) {
      for (const sub of group.options ?? []) entries.push({ command, group, sub, chain: [command, group, sub], options: sub.options ?? [] });
    }
  }
  return entries.map((e) => ({ ...e, key: e.chain.map((c) => c.name).join(' ') }));
}

export function entryName(entry, locale) {
  return entry.chain.map((c) => localized(c, 'name', locale)).join(' ');
}

/** Discord hides a command from members who lack its default_member_permissions. */
export function visibleTo(entry, permissions) {
  const needed = entry.command.default_member_permissions;
  if (needed === null || needed === undefined) return true;
  const required = BigInt(needed);
  return (BigInt(permissions) & required) === required;
}

export class Composer {
  /**
   * deps: { form, popup, hint, search, pill, options, send, error, getState() → { lang, locale,
   * actorPermissions, channels, members, roles, commands, channelName }, autocomplete(entry,
   * values, focused) → Promise<choices>, submit(entry, values) → Promise<void> }
   */
  constructor(deps) {
    this.d = deps;
    this.entry = null;
    this.inputs = new Map();
    this.highlight = 0;
    this.acTimer = undefined;
    this.acSeq = 0;

    deps.search.addEventListener('focus', () => this.showPalette());
    deps.search.addEventListener('input', () => {
      this.highlight = 0;
      this.showPalette();
    });
    deps.search.addEventListener('keydown', (event) => this.paletteKeys(event));
    deps.pill.addEventListener('click', () => this.clear(true));
    deps.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.send();
    });
    document.addEventListener('click', (event) => {
      if (!deps.form.contains(event.target)) this.hidePopup();
    });
  }

  refresh() {
    const { lang } = this.d.getState();
    this.d.search.placeholder = tr(lang, 'composer.search');
    this.d.send.textContent = tr(lang, 'composer.send');
    if (this.entry) {
      const key = this.entry.key;
      const values = this.values(false);
      this.select(this.entries().find((e) => e.key === key) ?? null, values);
    } else {
      this.renderHint();
    }
  }

  entries() {
    const { commands, actorPermissions } = this.d.getState();
    return commandEntries(commands).filter((e) => visibleTo(e, actorPermissions));
  }

  matches() {
    const { locale } = this.d.getState();
    const q = this.d.search.value.trim().replace(/^\//, '').toLowerCase();
    return this.entries().filter((e) => !q || entryName(e, locale).toLowerCase().includes(q) || e.key.includes(q));
  }

  showPalette() {
    if (this.entry) return;
    const { lang, locale } = this.d.getState();
    const list = this.matches();
    this.highlight = Math.min(this.highlight, Math.max(0, list.length - 1));
    const popup = this.d.popup;
    popup.replaceChildren();
    popup.dataset.kind = 'commands';
    if (!list.length) popup.append(el('div', { class: 'popup-empty' }, [tr(lang, 'composer.noMatch')]));
    list.forEach((entry, i) => {
      const item = el('button', { type: 'button', role: 'option', class: `popup-item${i === this.highlight ? ' active' : ''}`, 'data-command': entry.key }, [
        el('img', { src: '/static/avatars/feedbot.svg', alt: '' }),
        el('span', { class: 'popup-name' }, [`/${entryName(entry, locale)}`]),
        el('span', { class: 'popup-desc' }, [localized(entry.sub ?? entry.command, 'description', locale)]),
      ]);
      item.addEventListener('click', () => this.select(entry));
      popup.append(item);
    });
    popup.hidden = false;
  }

  paletteKeys(event) {
    if (this.d.popup.hidden || this.d.popup.dataset.kind !== 'commands') return;
    const list = this.matches();
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      this.highlight = (this.highlight + (event.key === 'ArrowDown' ? 1 : list.length - 1)) % Math.max(1, list.length);
      this.showPalette();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      if (list[this.highlight]) {
        event.preventDefault();
        this.select(list[this.highlight]);
      }
    } else if (event.key === 'Escape') {
      this.hidePopup();
    }
  }

  hidePopup() {
    this.d.popup.hidden = true;
    this.d.popup.replaceChildren();
  }

  clear(focus = false) {
    this.select(null);
    this.d.search.value = '';
    if (focus) this.d.search.focus();
  }

  /** Picks a command (or none) and draws its option inputs, keeping `values` where they fit. */
  select(entry, values = {}) {
    const { locale } = this.d.getState();
    // Suggestions still on their way belong to the previous inputs.
    clearTimeout(this.acTimer);
    this.acSeq += 1;
    this.entry = entry;
    this.inputs.clear();
    this.hidePopup();
    this.setError('');
    const { pill, search, options, send } = this.d;
    options.replaceChildren();
    pill.hidden = !entry;
    search.hidden = Boolean(entry);
    send.disabled = !entry;
    if (!entry) {
      this.renderHint();
      return;
    }
    pill.textContent = `/${entryName(entry, locale)}`;
    // Required options first, as Discord lists them.
    const ordered = [...entry.options].sort((a, b) => Number(Boolean(b.required)) - Number(Boolean(a.required)));
    for (const option of ordered) {
      const input = this.inputFor(option, values[option.name]);
      this.inputs.set(option.name, { option, input });
      const chip = el('label', { class: `chip${option.required ? ' required' : ''}`, 'data-option': option.name, title: localized(option, 'description', locale) }, [
        el('span', { class: 'chip-name' }, [localized(option, 'name', locale)]),
        input.wrapper ?? input,
      ]);
      options.append(chip);
    }
    this.renderHint();
    const first = ordered[0] && this.inputs.get(ordered[0].name)?.input;
    (first?.field ?? first)?.focus?.();
  }

  inputFor(option, previous) {
    const { lang, locale, channels, members, roles } = this.d.getState();
    const select = (choices, placeholder) => {
      const s = el('select', { name: option.name, 'data-testid': `option-${option.name}` });
      // Options are built by hand: an empty value attribute matters here.
      for (const c of [{ name: placeholder, value: '' }, ...choices]) {
        const o = document.createElement('option');
        o.value = String(c.value);
        o.textContent = c.name;
        s.append(o);
      }
      if (previous !== undefined && choices.some((c) => String(c.value) === String(previous))) s.value = String(previous);
      s.addEventListener('focus', () => this.renderHint(option));
      return s;
    };
    const pickOne = tr(lang, option.required ? 'composer.pickOne' : 'composer.none');
    if (option.choices?.length) {
      return select(option.choices.map((c) => ({ name: localized(c, 'name', locale), value: c.value })), pickOne);
    }
    switch (option.type) {
      case T.CHANNEL: {
        const types = option.channel_types;
        return select(
          channels.filter((c) => !types?.length || types.includes(c.type)).map((c) => ({ name: `# ${c.name}`, value: c.id })),
          pickOne,
        );
      }
      case T.USER:
      case T.MENTIONABLE:
        return select(members.map((m) => ({ name: `@${m.name}`, value: m.id })), pickOne);
      case T.ROLE:
        return select(roles.map((r) => ({ name: `@${r.name}`, value: r.id })), pickOne);
      case T.BOOLEAN:
        return select([{ name: 'True', value: 'true' }, { name: 'False', value: 'false' }], pickOne);
    }
    if (option.autocomplete) return this.autocompleteInput(option, previous);
    const numeric = option.type === T.INTEGER || option.type === T.NUMBER;
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
      placeholder: numeric
        ? [option.min_value, option.max_value].every((v) => v !== undefined)
          ? `${option.min_value}–${option.max_value}`
          : ''
        : localized(option, 'description', locale),
      class: numeric ? 'numeric' : undefined,
    });
    if (previous !== undefined) input.value = String(previous);
    input.addEventListener('focus', () => this.renderHint(option));
    return input;
  }

  /** A text field whose suggestions come from the bot (an autocomplete interaction per keystroke pause). */
  autocompleteInput(option, previous) {
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
      clearTimeout(this.acTimer);
      this.acTimer = setTimeout(() => void this.suggest(option, field), 150);
    };
    field.addEventListener('focus', () => {
      this.renderHint(option);
      ask();
    });
    field.addEventListener('input', () => {
      delete field.dataset.value;
      ask();
    });
    field.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !this.d.popup.hidden && this.d.popup.dataset.kind === 'autocomplete') {
        const first = this.d.popup.querySelector('.popup-item');
        if (first) {
          event.preventDefault();
          first.click();
        }
      } else if (event.key === 'Escape') {
        this.hidePopup();
      }
    });
    return { wrapper: field, field, autocomplete: true };
  }

  async suggest(option, field) {
    const { lang } = this.d.getState();
    if (!field.isConnected || document.activeElement !== field) return;
    const seq = ++this.acSeq;
    const popup = this.d.popup;
    popup.dataset.kind = 'autocomplete';
    popup.replaceChildren(el('div', { class: 'popup-empty' }, [tr(lang, 'composer.autocomplete.loading')]));
    popup.hidden = false;
    const values = this.values(false);
    values[option.name] = field.value;
    let choices = [];
    try {
      choices = await this.d.autocomplete(this.entry, values, option.name);
    } catch {
      choices = [];
    }
    if (seq !== this.acSeq) return;
    if (document.activeElement !== field) {
      this.hidePopup();
      return;
    }
    popup.replaceChildren();
    if (!choices.length) popup.append(el('div', { class: 'popup-empty' }, [tr(lang, 'composer.autocomplete.empty')]));
    for (const choice of choices) {
      const item = el('button', { type: 'button', role: 'option', class: 'popup-item', 'data-choice': String(choice.value) }, [
        el('span', { class: 'popup-name' }, [choice.name]),
      ]);
      // mousedown, not click: the field must not lose the choice to its blur.
      item.addEventListener('mousedown', (event) => event.preventDefault());
      item.addEventListener('click', () => {
        field.value = choice.name;
        field.dataset.value = String(choice.value);
        this.hidePopup();
      });
      popup.append(item);
    }
  }

  renderHint(option) {
    const { lang, locale, channelName } = this.d.getState();
    const hint = this.d.hint;
    hint.replaceChildren();
    if (!this.entry) {
      hint.append(tr(lang, 'composer.hint', { channel: `#${channelName}` }));
      return;
    }
    const target = option ?? this.entry.sub ?? this.entry.command;
    hint.append(
      el('strong', {}, [option ? localized(option, 'name', locale) : `/${entryName(this.entry, locale)}`]),
      ' — ',
      localized(target, 'description', locale),
      option && !option.required ? el('em', {}, [` (${tr(lang, 'composer.optional')})`]) : '',
    );
  }

  /** Option values as the API takes them; with `strict`, missing required ones are an error. */
  values(strict) {
    const { lang } = this.d.getState();
    const out = {};
    for (const [name, { option, input }] of this.inputs) {
      const field = input.field ?? input;
      const raw = (input.autocomplete ? (field.dataset.value ?? field.value) : field.value).trim();
      if (raw === '') {
        if (strict && option.required) {
          field.focus();
          throw new Error(`${localized(option, 'name', this.d.getState().locale)}: ${tr(lang, 'composer.required')}`);
        }
        continue;
      }
      if (option.type === T.INTEGER || option.type === T.NUMBER) out[name] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
      else if (option.type === T.BOOLEAN) out[name] = raw === 'true';
      else out[name] = raw;
    }
    return out;
  }

  setError(text) {
    this.d.error.textContent = text;
    this.d.error.hidden = !text;
  }

  async send() {
    if (!this.entry) return;
    let values;
    try {
      values = this.values(true);
    } catch (error) {
      this.setError(error.message);
      return;
    }
    this.d.send.disabled = true;
    try {
      await this.d.submit(this.entry, values);
      this.clear(false);
    } catch (error) {
      this.setError(tr(this.d.getState().lang, 'composer.error', { error: error.message }));
    } finally {
      this.d.send.disabled = !this.entry;
    }
  }
}
