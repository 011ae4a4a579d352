/**
 * Discord's documented payload limits and the field checkers every validator is built from. Each
 * checker records problems the way Discord answers: a path in a 50035 error tree, with Discord's
 * error code and message. Written by hand rather than with zod because the codes and messages
 * have to look like Discord's.
 *
 * Sources: discord-api-docs (message, embed, component, modal, application command limits) and
 * `discord-facts.md` of the shared spec.
 */
import type { FormErrors, PathSegment } from '../errors.js';

export const LIMITS = {
  content: 2000,
  embeds: 10,
  embedTotal: 6000,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  embedFieldName: 256,
  embedFieldValue: 1024,
  embedFooter: 2048,
  embedAuthor: 256,
  actionRows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  customId: 100,
  selectOptions: 25,
  selectPlaceholder: 150,
  componentsV2Total: 40,
  textDisplayTotal: 4000,
  choices: 25,
  choiceName: 100,
  choiceValue: 100,
  modalTitle: 45,
  modalComponents: 5,
  labelText: 45,
  labelDescription: 100,
  textInputLength: 4000,
  textInputPlaceholder: 100,
  commandName: 32,
  commandDescription: 100,
  commandOptions: 25,
  optionStringLength: 6000,
  chatInputCommands: 100,
  contextMenuCommands: 15,
} as const;

export const MessageFlag = {
  SuppressEmbeds: 1 << 2,
  Ephemeral: 1 << 6,
  Loading: 1 << 7,
  SuppressNotifications: 1 << 12,
  IsComponentsV2: 1 << 15,
} as const;

/** Discord counts characters, not UTF-16 units. */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

export type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const present = (value: unknown): boolean => value !== undefined && value !== null;

/** Checks a string field; returns the string when it is one. */
export function str(
  e: FormErrors,
  value: unknown,
  path: PathSegment[],
  opts: { min?: number; max: number; required?: boolean },
): string | undefined {
  if (!present(value)) {
    if (opts.required) e.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  if (typeof value !== 'string') {
    e.add(path, 'BASE_TYPE_STRING', `Could not interpret "${String(value)}" as string.`);
    return undefined;
  }
  const min = opts.min ?? 0;
  const n = charLength(value);
  if (n < min || n > opts.max) {
    if (min > 0) e.add(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${opts.max} in length.`);
    else e.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${opts.max} or fewer in length.`);
  }
  return value;
}

export function arr(
  e: FormErrors,
  value: unknown,
  path: PathSegment[],
  opts: { min?: number; max: number; required?: boolean },
): unknown[] | undefined {
  if (!present(value)) {
    if (opts.required) e.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  if (!Array.isArray(value)) {
    e.add(path, 'BASE_TYPE_ARRAY', 'Must be an array.');
    return undefined;
  }
  const min = opts.min ?? 0;
  if (value.length > opts.max) e.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${opts.max} or fewer in length.`);
  else if (value.length < min) e.add(path, 'BASE_TYPE_MIN_LENGTH', `Must be ${min} or more in length.`);
  return value;
}

export function int(
  e: FormErrors,
  value: unknown,
  path: PathSegment[],
  opts: { min?: number; max?: number; required?: boolean } = {},
): number | undefined {
  if (!present(value)) {
    if (opts.required) e.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    e.add(path, 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not int.`);
    return undefined;
  }
  if (opts.min !== undefined && value < opts.min) {
    e.add(path, 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${opts.min}.`);
  }
  if (opts.max !== undefined && value > opts.max) {
    e.add(path, 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${opts.max}.`);
  }
  return value;
}

export function bool(e: FormErrors, value: unknown, path: PathSegment[]): void {
  if (present(value) && typeof value !== 'boolean') {
    e.add(path, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  }
}

export function obj(e: FormErrors, value: unknown, path: PathSegment[], required = false): Obj | undefined {
  if (!present(value)) {
    if (required) e.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  if (!isObject(value)) {
    e.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return undefined;
  }
  return value;
}
