/* global document, File */
/**
 * The slash-command composer: pick a command in the palette (palette.js), then fill one input per
 * option (option-inputs.js) with the hint line saying what each one is for, and send it.
 */
import { commandEntries, entryName, visibleTo } from './commands.js';
import { OptionSuggestions } from './autocomplete.js';
import { el } from './dom.js';
import { localized, tr } from './i18n.js';
import { fitPlaceholders, optionInput, optionValue } from './option-inputs.js';
import { CommandPalette } from './palette.js';
import { hidePopup } from './popup.js';

/** What an option's input holds: the picked File, or its text (an autocomplete's picked value) trimmed. */
function rawValue(input) {
  const field = input.field ?? input;
  // A picked file is kept as itself; the page uploads it before sending the command (actions.js).
  if (input.file) return field.files?.[0];
  return (input.autocomplete ? (field.dataset.value ?? field.value) : field.value).trim();
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
    /** The required option the error line names ({ name, text }), until it holds a value. */
    this.missing = null;
    this.palette = new CommandPalette({
      search: deps.search,
      popup: deps.popup,
      getState: deps.getState,
      entries: () => this.entries(),
      onPick: (entry) => this.select(entry),
    });
    this.suggestions = new OptionSuggestions({
      popup: deps.popup,
      getState: deps.getState,
      choices: (option, typed) => deps.autocomplete(this.entry, { ...this.typedValues(), [option.name]: typed }, option.name),
      onFocus: (option) => this.renderHint(option),
    });

    deps.search.addEventListener('focus', () => this.showPalette());
    deps.search.addEventListener('input', () => this.showPalette(true));
    deps.search.addEventListener('keydown', (event) => this.palette.keydown(event));
    deps.pill.addEventListener('click', () => this.clear(true));
    // A field the error line names as required: the line goes once it holds a value, as in any form.
    for (const type of ['input', 'change']) deps.options.addEventListener(type, () => this.recheckMissing());
    deps.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.send();
    });
    document.addEventListener('click', (event) => {
      if (!deps.form.contains(event.target)) hidePopup(deps.popup);
    });
  }

  /** Redraws for another language, actor or channel, keeping the picked command and its values. */
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

  /** The commands the acting user may run. */
  entries() {
    const { commands, actorPermissions } = this.d.getState();
    return commandEntries(commands).filter((e) => visibleTo(e, actorPermissions));
  }

  showPalette(fromStart = false) {
    if (!this.entry) this.palette.show(fromStart);
  }

  clear(focus = false) {
    this.select(null);
    this.d.search.value = '';
    if (focus) this.d.search.focus();
  }

  /** Picks a command (or none) and draws its option inputs, keeping `values` where they fit. */
  select(entry, values = {}) {
    const state = this.d.getState();
    this.suggestions.cancel();
    this.entry = entry;
    this.inputs.clear();
    hidePopup(this.d.popup);
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
    pill.textContent = `/${entryName(entry, state.locale)}`;
    // Required options first, as Discord lists them.
    const ordered = [...entry.options].sort((a, b) => Number(Boolean(b.required)) - Number(Boolean(a.required)));
    for (const option of ordered) {
      const input = optionInput(option, values[option.name], state, { onFocus: (o) => this.renderHint(o), suggestions: this.suggestions });
      this.inputs.set(option.name, { option, input });
      const chip = el('label', { class: `chip${option.required ? ' required' : ''}`, 'data-option': option.name, title: localized(option, 'description', state.locale) }, [
        el('span', { class: 'chip-name' }, [localized(option, 'name', state.locale)]),
        input.wrapper ?? input,
      ]);
      options.append(chip);
    }
    fitPlaceholders(options);
    this.renderHint();
    const first = ordered[0] && this.inputs.get(ordered[0].name)?.input;
    (first?.field ?? first)?.focus?.();
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

  /** Option values as the API takes them; with `strict`, missing required ones are an error naming the option. */
  values(strict) {
    const { lang, locale } = this.d.getState();
    const out = {};
    for (const [name, { option, input }] of this.inputs) {
      const raw = rawValue(input);
      if (raw instanceof File) out[name] = raw;
      else if (raw) out[name] = optionValue(option, raw);
      else if (strict && option.required) {
        (input.field ?? input).focus();
        throw Object.assign(new Error(`${localized(option, 'name', locale)}: ${tr(lang, 'field.required')}`), { option: name });
      }
    }
    return out;
  }

  /** Takes the "required" complaint away once the option it names holds a value. */
  recheckMissing() {
    const missing = this.missing && this.inputs.get(this.missing.name);
    // Unless something else (a refusal, the bot offline) has been said there since.
    if (missing && rawValue(missing.input) && this.d.error.textContent === this.missing.text) this.setError('');
  }

  /** What autocomplete sends: the typed values, not files (Discord uploads those only on send). */
  typedValues() {
    return Object.fromEntries(Object.entries(this.values(false)).filter(([name]) => !this.inputs.get(name)?.input.file));
  }

  /** Shows `text` under the bar ('' hides it); `option` names the required option it is about. */
  setError(text, option) {
    const field = (name) => {
      const input = name && this.inputs.get(name)?.input;
      return input ? (input.field ?? input) : null;
    };
    field(this.missing?.name)?.removeAttribute('aria-invalid');
    this.missing = option ? { name: option, text } : null;
    field(option)?.setAttribute('aria-invalid', 'true');
    this.d.error.textContent = text;
    this.d.error.hidden = !text;
  }

  async send() {
    if (!this.entry) return;
    let values;
    try {
      values = this.values(true);
    } catch (error) {
      this.setError(error.message, error.option);
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
