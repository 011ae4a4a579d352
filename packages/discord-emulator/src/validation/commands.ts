/** Application command bodies (create, edit, bulk overwrite). */
import { Locale } from 'discord-api-types/v10';
import { FormErrors, type PathSegment } from '../errors.js';
import { LIMITS, arr, bool, int, isObject, obj, present, str } from './fields.js';
import { validateChoice } from './modals.js';

/** discord-api-docs: `^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$` (Unicode). */
const COMMAND_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const VALID_LOCALES = new Set<string>(Object.values(Locale));

function checkCommandName(e: FormErrors, value: unknown, path: PathSegment[], chatInput: boolean): string | undefined {
  const name = str(e, value, path, { min: 1, max: LIMITS.commandName, required: true });
  if (name === undefined) return undefined;
  if (chatInput) {
    if (!COMMAND_NAME.test(name)) {
      e.add(path, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    } else if (name !== name.toLowerCase()) {
      e.add(path, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name must be lowercase');
    }
  }
  return name;
}

function checkLocalizations(e: FormErrors, value: unknown, path: PathSegment[], check: (v: unknown, p: PathSegment[]) => void): void {
  if (!present(value)) return;
  const o = obj(e, value, path);
  if (!o) return;
  for (const [locale, text] of Object.entries(o)) {
    if (!VALID_LOCALES.has(locale)) {
      e.add([...path, locale], 'ENUM_TYPE_COERCE', `Value "${locale}" is not a valid enum value.`);
      continue;
    }
    check(text, [...path, locale]);
  }
}

const CHOICE_TYPES = new Set([3, 4, 10]);

function validateOptions(e: FormErrors, value: unknown, path: PathSegment[], level: 'command' | 'group' | 'subcommand'): void {
  const options = arr(e, value, path, { max: LIMITS.commandOptions });
  if (!options) return;
  const names = new Set<string>();
  let seenOptional = false;
  const types = options.map((o) => (isObject(o) ? o.type : undefined));
  const subs = types.filter((t) => t === 1 || t === 2).length;
  if (subs > 0 && subs < options.length) {
    e.add(path, 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command and sub-command group option types are mutually exclusive to all other types');
  }
  options.forEach((option, i) => {
    const p = [...path, i];
    const o = obj(e, option, p, true);
    if (!o) return;
    const type = int(e, o.type, [...p, 'type'], { min: 1, max: 11, required: true });
    const name = checkCommandName(e, o.name, [...p, 'name'], true);
    if (name !== undefined) {
      if (names.has(name)) e.add([...p, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
      names.add(name);
    }
    str(e, o.description, [...p, 'description'], { min: 1, max: LIMITS.commandDescription, required: true });
    checkLocalizations(e, o.name_localizations, [...p, 'name_localizations'], (v, lp) => checkCommandName(e, v, lp, true));
    checkLocalizations(e, o.description_localizations, [...p, 'description_localizations'], (v, lp) =>
      str(e, v, lp, { min: 1, max: LIMITS.commandDescription }),
    );
    bool(e, o.required, [...p, 'required']);
    bool(e, o.autocomplete, [...p, 'autocomplete']);
    if (type === 1 || type === 2) {
      if (level === 'subcommand' || (level === 'group' && type === 2)) {
        e.add([...p, 'type'], 'APPLICATION_COMMAND_OPTION_TYPE_INVALID', 'Sub-commands cannot be nested this deep');
      }
      if (type === 2) {
        const children = arr(e, o.options, [...p, 'options'], { max: LIMITS.commandOptions });
        children?.forEach((child, j) => {
          if (isObject(child) && child.type !== 1) {
            e.add([...p, 'options', j, 'type'], 'APPLICATION_COMMAND_OPTION_TYPE_INVALID', 'A sub-command group may only contain sub-commands');
          }
        });
      }
      validateOptions(e, o.options, [...p, 'options'], type === 2 ? 'group' : 'subcommand');
      if (o.required === true) e.add([...p, 'required'], 'APPLICATION_COMMAND_OPTION_REQUIRED_INVALID', 'Sub-commands cannot be required');
      return;
    }
    if (o.required === true && seenOptional) {
      e.add([...p, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
    }
    if (o.required !== true) seenOptional = true;
    const choices = arr(e, o.choices, [...p, 'choices'], { max: LIMITS.choices });
    if (choices && choices.length > 0 && type !== undefined && !CHOICE_TYPES.has(type)) {
      e.add([...p, 'choices'], 'APPLICATION_COMMAND_OPTION_CHOICES_INVALID', 'Choices are only allowed for string, integer and number options');
    }
    choices?.forEach((choice, j) => validateChoice(e, choice, [...p, 'choices', j], type));
    if (o.autocomplete === true) {
      if (type !== undefined && !CHOICE_TYPES.has(type)) {
        e.add([...p, 'autocomplete'], 'APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_INVALID', 'Autocomplete is only allowed for string, integer and number options');
      }
      if (choices && choices.length > 0) {
        e.add([...p, 'autocomplete'], 'APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES_EXCLUSIVE', 'Autocomplete and choices are mutually exclusive');
      }
    }
    const minLength = int(e, o.min_length, [...p, 'min_length'], { min: 0, max: LIMITS.optionStringLength });
    const maxLength = int(e, o.max_length, [...p, 'max_length'], { min: 1, max: LIMITS.optionStringLength });
    if ((minLength !== undefined || maxLength !== undefined) && type !== 3) {
      e.add([...p, 'type'], 'APPLICATION_COMMAND_OPTION_LENGTH_INVALID', 'min_length and max_length are only allowed for string options');
    }
    if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
      e.add([...p, 'min_length'], 'APPLICATION_COMMAND_OPTION_LENGTH_INVALID', 'min_length must be less than or equal to max_length');
    }
    for (const key of ['min_value', 'max_value'] as const) {
      if (!present(o[key])) continue;
      if (type !== 4 && type !== 10) {
        e.add([...p, key], 'APPLICATION_COMMAND_OPTION_VALUE_INVALID', `${key} is only allowed for integer and number options`);
      } else if (typeof o[key] !== 'number' || (type === 4 && !Number.isInteger(o[key]))) {
        e.add([...p, key], 'NUMBER_TYPE_COERCE', `Value "${String(o[key])}" is not ${type === 4 ? 'int' : 'a number'}.`);
      }
    }
    if (typeof o.min_value === 'number' && typeof o.max_value === 'number' && o.min_value > o.max_value) {
      e.add([...p, 'min_value'], 'APPLICATION_COMMAND_OPTION_VALUE_INVALID', 'min_value must be less than or equal to max_value');
    }
    if (present(o.options)) {
      e.add([...p, 'options'], 'APPLICATION_COMMAND_OPTIONS_INVALID', 'Only sub-commands and groups may have options');
    }
  });
}

/** One command of a create/edit body (`path` is its prefix in the error tree). */
export function validateCommand(e: FormErrors, command: unknown, path: PathSegment[]): void {
  const c = obj(e, command, path, true);
  if (!c) return;
  const type = int(e, c.type, [...path, 'type'], { min: 1, max: 4 }) ?? 1;
  const chatInput = type === 1;
  checkCommandName(e, c.name, [...path, 'name'], chatInput);
  checkLocalizations(e, c.name_localizations, [...path, 'name_localizations'], (v, lp) => checkCommandName(e, v, lp, chatInput));
  if (chatInput) {
    str(e, c.description, [...path, 'description'], { min: 1, max: LIMITS.commandDescription, required: true });
    checkLocalizations(e, c.description_localizations, [...path, 'description_localizations'], (v, lp) =>
      str(e, v, lp, { min: 1, max: LIMITS.commandDescription }),
    );
    validateOptions(e, c.options, [...path, 'options'], 'command');
  } else {
    if (typeof c.description === 'string' && c.description !== '') {
      e.add([...path, 'description'], 'APPLICATION_COMMAND_DESCRIPTION_INVALID', 'Context menu commands cannot have a description');
    }
    if (Array.isArray(c.options) && c.options.length > 0) {
      e.add([...path, 'options'], 'APPLICATION_COMMAND_OPTIONS_INVALID', 'Context menu commands cannot have options');
    }
  }
  if (present(c.default_member_permissions) && (typeof c.default_member_permissions !== 'string' || !/^\d+$/.test(c.default_member_permissions))) {
    e.add([...path, 'default_member_permissions'], 'BASE_TYPE_STRING', 'Must be a permission bit set as a string');
  }
  const contexts = arr(e, c.contexts, [...path, 'contexts'], { max: 3 });
  contexts?.forEach((ctx, i) => int(e, ctx, [...path, 'contexts', i], { min: 0, max: 2 }));
  const integrations = arr(e, c.integration_types, [...path, 'integration_types'], { max: 2 });
  integrations?.forEach((it, i) => int(e, it, [...path, 'integration_types', i], { min: 0, max: 1 }));
  bool(e, c.nsfw, [...path, 'nsfw']);
  bool(e, c.dm_permission, [...path, 'dm_permission']);
}

/** The body of a bulk overwrite (`PUT .../commands`). */
export function validateCommandList(body: unknown): FormErrors {
  const e = new FormErrors();
  if (!Array.isArray(body)) {
    e.add([], 'BASE_TYPE_ARRAY', 'Must be an array.');
    return e;
  }
  const seen = new Map<string, number>();
  const perType = new Map<number, number>();
  body.forEach((command, i) => {
    validateCommand(e, command, [i]);
    if (!isObject(command) || typeof command.name !== 'string') return;
    const type = typeof command.type === 'number' ? command.type : 1;
    perType.set(type, (perType.get(type) ?? 0) + 1);
    const key = `${type}:${command.name}`;
    if (seen.has(key)) e.add([i, 'name'], 'APPLICATION_COMMANDS_DUPLICATE_NAME', `Application command names must be unique`);
    seen.set(key, i);
  });
  for (const [type, count] of perType) {
    const max = type === 1 ? LIMITS.chatInputCommands : LIMITS.contextMenuCommands;
    if (count > max) e.add([], 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer commands of type ${type}.`);
  }
  return e;
}
