/**
 * Discord's documented payload limits, checked the way Discord answers: every problem becomes a
 * path in a 50035 error tree. Written by hand rather than with zod because the error codes and
 * messages have to look like Discord's, and several rules span fields (6000 characters across
 * embeds, custom_id unique in a message, choices vs autocomplete).
 *
 * Sources: discord-api-docs (message, embed, component, modal, application command limits) and
 * /work/shared/discord-facts.md.
 */
import { Locale } from 'discord-api-types/v10';
import { FormErrors, type PathSegment } from './errors.js';

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

type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** Checks a string field; returns the string when it is one. */
function str(
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

function arr(
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

function int(
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

function bool(e: FormErrors, value: unknown, path: PathSegment[]): void {
  if (present(value) && typeof value !== 'boolean') {
    e.add(path, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  }
}

function obj(e: FormErrors, value: unknown, path: PathSegment[], required = false): Obj | undefined {
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

// ---------------------------------------------------------------------------------------------
// Embeds

function embedLength(embed: Obj): number {
  const s = (v: unknown): number => (typeof v === 'string' ? charLength(v) : 0);
  let total = s(embed.title) + s(embed.description);
  if (isObject(embed.footer)) total += s(embed.footer.text);
  if (isObject(embed.author)) total += s(embed.author.name);
  if (Array.isArray(embed.fields)) {
    for (const field of embed.fields) if (isObject(field)) total += s(field.name) + s(field.value);
  }
  return total;
}

function validateEmbed(e: FormErrors, embed: unknown, path: PathSegment[]): void {
  const o = obj(e, embed, path, true);
  if (!o) return;
  str(e, o.title, [...path, 'title'], { max: LIMITS.embedTitle });
  str(e, o.description, [...path, 'description'], { max: LIMITS.embedDescription });
  str(e, o.url, [...path, 'url'], { max: 2048 });
  int(e, o.color, [...path, 'color'], { min: 0, max: 0xffffff });
  const footer = obj(e, o.footer, [...path, 'footer']);
  if (footer) str(e, footer.text, [...path, 'footer', 'text'], { min: 1, max: LIMITS.embedFooter, required: true });
  const author = obj(e, o.author, [...path, 'author']);
  if (author) str(e, author.name, [...path, 'author', 'name'], { min: 1, max: LIMITS.embedAuthor, required: true });
  for (const key of ['image', 'thumbnail'] as const) {
    const media = obj(e, o[key], [...path, key]);
    if (media) str(e, media.url, [...path, key, 'url'], { min: 1, max: 2048, required: true });
  }
  const fields = arr(e, o.fields, [...path, 'fields'], { max: LIMITS.embedFields });
  fields?.forEach((field, i) => {
    const f = obj(e, field, [...path, 'fields', i], true);
    if (!f) return;
    str(e, f.name, [...path, 'fields', i, 'name'], { min: 1, max: LIMITS.embedFieldName, required: true });
    str(e, f.value, [...path, 'fields', i, 'value'], { min: 1, max: LIMITS.embedFieldValue, required: true });
    bool(e, f.inline, [...path, 'fields', i, 'inline']);
  });
  if (present(o.timestamp) && (typeof o.timestamp !== 'string' || Number.isNaN(Date.parse(o.timestamp)))) {
    e.add([...path, 'timestamp'], 'DATE_TYPE_PARSE', `Could not parse ${String(o.timestamp)}. Should be ISO8601.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Message components

const SELECT_TYPES = new Set([3, 5, 6, 7, 8]);
const V2_TOP_LEVEL = new Set([1, 9, 10, 12, 13, 14, 17]);

interface ComponentWalk {
  customIds: Map<string, PathSegment[]>;
  count: number;
  textLength: number;
}

function trackCustomId(e: FormErrors, walk: ComponentWalk, value: unknown, path: PathSegment[], required: boolean) {
  const id = str(e, value, path, { min: 1, max: LIMITS.customId, required });
  if (id === undefined) return;
  if (walk.customIds.has(id)) {
    e.add(path, 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
  } else {
    walk.customIds.set(id, path);
  }
}

function validateButton(e: FormErrors, walk: ComponentWalk, c: Obj, path: PathSegment[]): void {
  const style = int(e, c.style, [...path, 'style'], { min: 1, max: 6, required: true });
  str(e, c.label, [...path, 'label'], { max: LIMITS.buttonLabel });
  bool(e, c.disabled, [...path, 'disabled']);
  if (style === 5) {
    str(e, c.url, [...path, 'url'], { min: 1, max: 512, required: true });
    if (present(c.custom_id)) e.add([...path, 'custom_id'], 'BUTTON_COMPONENT_CUSTOM_ID_FORBIDDEN', 'A link button cannot have a custom_id');
  } else if (style === 6) {
    str(e, c.sku_id, [...path, 'sku_id'], { min: 1, max: 32, required: true });
  } else if (style !== undefined) {
    trackCustomId(e, walk, c.custom_id, [...path, 'custom_id'], true);
    if (present(c.url)) e.add([...path, 'url'], 'BUTTON_COMPONENT_URL_FORBIDDEN', 'A non-link button cannot have a url');
  }
  if (style !== 6 && !present(c.label) && !present(c.emoji)) {
    e.add([...path, 'label'], 'BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED', 'A button must have a label or an emoji');
  }
}

function validateSelect(e: FormErrors, walk: ComponentWalk, c: Obj, path: PathSegment[], inModal: boolean): void {
  trackCustomId(e, walk, c.custom_id, [...path, 'custom_id'], true);
  str(e, c.placeholder, [...path, 'placeholder'], { max: LIMITS.selectPlaceholder });
  const min = int(e, c.min_values, [...path, 'min_values'], { min: 0, max: 25 });
  const max = int(e, c.max_values, [...path, 'max_values'], { min: 1, max: 25 });
  if (min !== undefined && max !== undefined && min > max) {
    e.add([...path, 'min_values'], 'SELECT_COMPONENT_MIN_VALUES_GREATER_THAN_MAX', 'min_values must be less than or equal to max_values');
  }
  if (!inModal) bool(e, c.disabled, [...path, 'disabled']);
  if (c.type === 3) {
    const options = arr(e, c.options, [...path, 'options'], { min: 1, max: LIMITS.selectOptions, required: true });
    const values = new Set<string>();
    options?.forEach((option, i) => {
      const o = obj(e, option, [...path, 'options', i], true);
      if (!o) return;
      str(e, o.label, [...path, 'options', i, 'label'], { min: 1, max: 100, required: true });
      const value = str(e, o.value, [...path, 'options', i, 'value'], { min: 1, max: 100, required: true });
      str(e, o.description, [...path, 'options', i, 'description'], { max: 100 });
      if (value !== undefined) {
        if (values.has(value)) e.add([...path, 'options', i, 'value'], 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED', 'Select option values must be unique');
        values.add(value);
      }
    });
    if (options && max !== undefined && max > options.length) {
      e.add([...path, 'max_values'], 'BASE_TYPE_MAX', `Must be less than or equal to ${options.length}.`);
    }
  }
}

/** One message component (any depth). */
function validateMessageComponent(e: FormErrors, walk: ComponentWalk, component: unknown, path: PathSegment[], v2: boolean): void {
  const c = obj(e, component, path, true);
  if (!c) return;
  walk.count++;
  const type = int(e, c.type, [...path, 'type'], { required: true });
  if (type === undefined) return;
  switch (type) {
    case 1: {
      const children = arr(e, c.components, [...path, 'components'], { min: 1, max: LIMITS.buttonsPerRow, required: true });
      if (!children) return;
      const types = children.map((child) => (isObject(child) ? child.type : undefined));
      if (types.some((t) => SELECT_TYPES.has(t as number)) && children.length > 1) {
        e.add([...path, 'components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width');
      }
      children.forEach((child, i) => {
        const t = isObject(child) ? child.type : undefined;
        if (t !== 2 && !SELECT_TYPES.has(t as number)) {
          e.add([...path, 'components', i, 'type'], 'COMPONENT_TYPE_INVALID', `Component type ${String(t)} is not allowed in an action row of a message`);
          return;
        }
        validateMessageComponent(e, walk, child, [...path, 'components', i], v2);
      });
      return;
    }
    case 2:
      validateButton(e, walk, c, path);
      return;
    case 3:
    case 5:
    case 6:
    case 7:
    case 8:
      validateSelect(e, walk, c, path, false);
      return;
    case 4:
      e.add([...path, 'type'], 'COMPONENT_TYPE_INVALID', 'Text inputs are only allowed in modals');
      return;
    case 10: {
      const content = str(e, c.content, [...path, 'content'], { min: 1, max: LIMITS.textDisplayTotal, required: true });
      if (content) walk.textLength += charLength(content);
      return;
    }
    case 9: {
      const children = arr(e, c.components, [...path, 'components'], { min: 1, max: 3, required: true });
      children?.forEach((child, i) => validateMessageComponent(e, walk, child, [...path, 'components', i], v2));
      const accessory = obj(e, c.accessory, [...path, 'accessory'], true);
      if (accessory) validateMessageComponent(e, walk, accessory, [...path, 'accessory'], v2);
      return;
    }
    case 17: {
      const children = arr(e, c.components, [...path, 'components'], { min: 1, max: LIMITS.componentsV2Total, required: true });
      children?.forEach((child, i) => validateMessageComponent(e, walk, child, [...path, 'components', i], v2));
      return;
    }
    case 11:
    case 12:
    case 13:
    case 14:
      return;
    default:
      e.add([...path, 'type'], 'COMPONENT_TYPE_INVALID', `Invalid component type ${type}`);
  }
}

function validateMessageComponents(e: FormErrors, value: unknown, path: PathSegment[], flags: number): void {
  const v2 = (flags & MessageFlag.IsComponentsV2) !== 0;
  const list = arr(e, value, path, { max: v2 ? LIMITS.componentsV2Total : LIMITS.actionRows });
  if (!list) return;
  const walk: ComponentWalk = { customIds: new Map(), count: 0, textLength: 0 };
  list.forEach((component, i) => {
    const type = isObject(component) ? component.type : undefined;
    if (!v2 && type !== 1) {
      e.add([...path, i, 'type'], 'COMPONENT_TYPE_INVALID', 'Top-level message components must be action rows unless the IS_COMPONENTS_V2 flag is set');
      return;
    }
    if (v2 && !V2_TOP_LEVEL.has(type as number)) {
      e.add([...path, i, 'type'], 'COMPONENT_TYPE_INVALID', `Component type ${String(type)} is not allowed at the top level`);
      return;
    }
    validateMessageComponent(e, walk, component, [...path, i], v2);
  });
  if (v2 && walk.count > LIMITS.componentsV2Total) {
    e.add(path, 'COMPONENT_MAX_TOTAL_COMPONENTS_EXCEEDED', `Must be ${LIMITS.componentsV2Total} or fewer in total.`);
  }
  if (v2 && walk.textLength > LIMITS.textDisplayTotal) {
    e.add(path, 'COMPONENT_MAX_TEXT_LENGTH_EXCEEDED', `Total text display content must be ${LIMITS.textDisplayTotal} or fewer in length.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

export interface MessageCheckResult {
  errors: FormErrors;
  /** True when the payload has nothing to show (Discord's 50006). */
  empty: boolean;
}

/**
 * Message create/edit bodies (channel messages, follow-ups, edits, callback types 4 and 7).
 * `path` is the prefix of every error (`['data']` inside an interaction callback).
 */
export function validateMessagePayload(
  body: unknown,
  opts: { path?: PathSegment[]; requireContent: boolean; existingFlags?: number },
): MessageCheckResult {
  const e = new FormErrors();
  const path = opts.path ?? [];
  const o = obj(e, body, path, opts.requireContent);
  if (!o) return { errors: e, empty: opts.requireContent && e.ok };
  const flags = int(e, o.flags, [...path, 'flags'], { min: 0 }) ?? opts.existingFlags ?? 0;
  const v2 = (flags & MessageFlag.IsComponentsV2) !== 0;
  const content = str(e, o.content, [...path, 'content'], { max: LIMITS.content });
  const embeds = arr(e, o.embeds, [...path, 'embeds'], { max: LIMITS.embeds });
  embeds?.forEach((embed, i) => validateEmbed(e, embed, [...path, 'embeds', i]));
  if (embeds) {
    const total = embeds.reduce<number>((sum, embed) => sum + (isObject(embed) ? embedLength(embed) : 0), 0);
    if (total > LIMITS.embedTotal) {
      e.add([...path, 'embeds'], 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${LIMITS.embedTotal}`);
    }
  }
  validateMessageComponents(e, o.components, [...path, 'components'], flags);
  if (v2 && ((content !== undefined && content !== '') || (embeds && embeds.length > 0))) {
    e.add([...path, 'flags'], 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The content and embeds fields cannot be used with the IS_COMPONENTS_V2 flag');
  }
  bool(e, o.tts, [...path, 'tts']);
  arr(e, o.attachments, [...path, 'attachments'], { max: 10 });
  const hasComponents = Array.isArray(o.components) && o.components.length > 0;
  const hasAttachments = Array.isArray(o.attachments) && o.attachments.length > 0;
  const empty =
    opts.requireContent &&
    (content === undefined || content.trim() === '') &&
    !(embeds && embeds.length > 0) &&
    !hasComponents &&
    !hasAttachments &&
    !present(o.poll) &&
    !(Array.isArray(o.sticker_ids) && o.sticker_ids.length > 0);
  return { errors: e, empty };
}

// ---------------------------------------------------------------------------------------------
// Autocomplete and modals

function validateChoice(e: FormErrors, choice: unknown, path: PathSegment[], valueType?: number): void {
  const c = obj(e, choice, path, true);
  if (!c) return;
  str(e, c.name, [...path, 'name'], { min: 1, max: LIMITS.choiceName, required: true });
  if (isObject(c.name_localizations)) {
    for (const [locale, name] of Object.entries(c.name_localizations)) {
      str(e, name, [...path, 'name_localizations', locale], { min: 1, max: LIMITS.choiceName });
    }
  }
  const value = c.value;
  if (!present(value)) {
    e.add([...path, 'value'], 'BASE_TYPE_REQUIRED', 'This field is required');
  } else if (typeof value === 'string') {
    if (valueType !== undefined && valueType !== 3) {
      e.add([...path, 'value'], 'NUMBER_TYPE_COERCE', `Value "${value}" is not a number.`);
    } else {
      str(e, value, [...path, 'value'], { min: valueType === 3 ? 1 : 0, max: LIMITS.choiceValue });
    }
  } else if (typeof value === 'number') {
    if (valueType === 3) e.add([...path, 'value'], 'BASE_TYPE_STRING', `Could not interpret "${value}" as string.`);
    else if (valueType === 4) int(e, value, [...path, 'value'], { min: -(2 ** 53), max: 2 ** 53 });
  } else {
    e.add([...path, 'value'], 'BASE_TYPE_STRING', `Could not interpret "${String(value)}" as string.`);
  }
}

/** Callback type 8 data: `{ choices }`. */
export function validateAutocompleteData(data: unknown, path: PathSegment[] = ['data']): FormErrors {
  const e = new FormErrors();
  const o = obj(e, data, path, true);
  if (!o) return e;
  const choices = arr(e, o.choices, [...path, 'choices'], { max: LIMITS.choices, required: true });
  choices?.forEach((choice, i) => validateChoice(e, choice, [...path, 'choices', i]));
  return e;
}

function validateTextInput(e: FormErrors, walk: ComponentWalk, c: Obj, path: PathSegment[], needsLabel: boolean): void {
  trackCustomId(e, walk, c.custom_id, [...path, 'custom_id'], true);
  int(e, c.style, [...path, 'style'], { min: 1, max: 2, required: true });
  if (needsLabel) str(e, c.label, [...path, 'label'], { min: 1, max: LIMITS.labelText, required: true });
  else str(e, c.label, [...path, 'label'], { max: LIMITS.labelText });
  const min = int(e, c.min_length, [...path, 'min_length'], { min: 0, max: LIMITS.textInputLength });
  const max = int(e, c.max_length, [...path, 'max_length'], { min: 1, max: LIMITS.textInputLength });
  if (min !== undefined && max !== undefined && min > max) {
    e.add([...path, 'min_length'], 'TEXT_INPUT_MIN_GREATER_THAN_MAX', 'min_length must be less than or equal to max_length');
  }
  str(e, c.value, [...path, 'value'], { max: max ?? LIMITS.textInputLength });
  str(e, c.placeholder, [...path, 'placeholder'], { max: LIMITS.textInputPlaceholder });
  bool(e, c.required, [...path, 'required']);
}

const LABEL_CHILD_TYPES = new Set([3, 4, 5, 6, 7, 8, 19, 21, 22, 23]);

/** Callback type 9 data. Accepts Label (18) wrapping and the deprecated action-row wrapping. */
export function validateModalData(data: unknown, path: PathSegment[] = ['data']): FormErrors {
  const e = new FormErrors();
  const o = obj(e, data, path, true);
  if (!o) return e;
  str(e, o.custom_id, [...path, 'custom_id'], { min: 1, max: LIMITS.customId, required: true });
  str(e, o.title, [...path, 'title'], { min: 1, max: LIMITS.modalTitle, required: true });
  const components = arr(e, o.components, [...path, 'components'], { min: 1, max: LIMITS.modalComponents, required: true });
  const walk: ComponentWalk = { customIds: new Map(), count: 0, textLength: 0 };
  components?.forEach((component, i) => {
    const cpath = [...path, 'components', i];
    const c = obj(e, component, cpath, true);
    if (!c) return;
    if (c.type === 18) {
      str(e, c.label, [...cpath, 'label'], { min: 1, max: LIMITS.labelText, required: true });
      str(e, c.description, [...cpath, 'description'], { max: LIMITS.labelDescription });
      const child = obj(e, c.component, [...cpath, 'component'], true);
      if (!child) return;
      const childType = child.type as number;
      if (!LABEL_CHILD_TYPES.has(childType)) {
        e.add([...cpath, 'component', 'type'], 'COMPONENT_TYPE_INVALID', `Component type ${String(child.type)} is not allowed in a label`);
      } else if (childType === 4) {
        validateTextInput(e, walk, child, [...cpath, 'component'], false);
      } else if (SELECT_TYPES.has(childType)) {
        validateSelect(e, walk, child, [...cpath, 'component'], true);
      } else {
        trackCustomId(e, walk, child.custom_id, [...cpath, 'component', 'custom_id'], true);
      }
    } else if (c.type === 1) {
      const children = arr(e, c.components, [...cpath, 'components'], { min: 1, max: 1, required: true });
      children?.forEach((child, j) => {
        const ch = obj(e, child, [...cpath, 'components', j], true);
        if (!ch) return;
        if (ch.type !== 4) {
          e.add([...cpath, 'components', j, 'type'], 'COMPONENT_TYPE_INVALID', 'Action rows in modals may only hold text inputs');
          return;
        }
        validateTextInput(e, walk, ch, [...cpath, 'components', j], true);
      });
    } else if (c.type === 10) {
      str(e, c.content, [...cpath, 'content'], { min: 1, max: LIMITS.textDisplayTotal, required: true });
    } else {
      e.add([...cpath, 'type'], 'COMPONENT_TYPE_INVALID', `Component type ${String(c.type)} is not allowed in a modal`);
    }
  });
  return e;
}

// ---------------------------------------------------------------------------------------------
// Application commands

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
