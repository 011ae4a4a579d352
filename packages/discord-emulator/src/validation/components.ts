/**
 * Message components (action rows, buttons, selects, components v2), shared with modals for
 * selects and custom_id uniqueness.
 */
import type { FormErrors, PathSegment } from '../errors.js';
import { LIMITS, MessageFlag, arr, bool, charLength, int, isObject, obj, present, str, type Obj } from './fields.js';

export const SELECT_TYPES = new Set([3, 5, 6, 7, 8]);
const V2_TOP_LEVEL = new Set([1, 9, 10, 12, 13, 14, 17]);

export interface ComponentWalk {
  customIds: Map<string, PathSegment[]>;
  count: number;
  textLength: number;
}

export function trackCustomId(e: FormErrors, walk: ComponentWalk, value: unknown, path: PathSegment[], required: boolean) {
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

/** What a typed select's `default_values` may name, by select type (Discord's SelectDefaultValue schemas). */
const DEFAULT_VALUE_TYPES: Record<number, string[]> = { 5: ['user'], 6: ['role'], 7: ['user', 'role'], 8: ['channel'] };
/** Channel types a channel select may offer (Discord's ChannelTypes). */
const CHANNEL_TYPES = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16];
const SNOWFLAKE = /^(0|[1-9][0-9]{0,19})$/;

/**
 * The options of a string select, checkbox group or radio group: labels and values 1–100
 * characters, values unique. Returns how many are marked `default`.
 */
export function validateOptions(e: FormErrors, c: Obj, path: PathSegment[], limits: { min: number; max: number }): { count: number; defaults: number } | undefined {
  const options = arr(e, c.options, [...path, 'options'], { min: limits.min, max: limits.max, required: true });
  if (!options) return undefined;
  const values = new Set<string>();
  let defaults = 0;
  options.forEach((option, i) => {
    const o = obj(e, option, [...path, 'options', i], true);
    if (!o) return;
    str(e, o.label, [...path, 'options', i, 'label'], { min: 1, max: 100, required: true });
    const value = str(e, o.value, [...path, 'options', i, 'value'], { min: 1, max: 100, required: true });
    str(e, o.description, [...path, 'options', i, 'description'], { max: 100 });
    bool(e, o.default, [...path, 'options', i, 'default']);
    if (o.default === true) defaults++;
    if (value !== undefined) {
      if (values.has(value)) e.add([...path, 'options', i, 'value'], 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED', 'Select option values must be unique');
      values.add(value);
    }
  });
  return { count: options.length, defaults };
}

/**
 * min_values/max_values within `0..limit` / `1..limit`, min ≤ max, and both no more than the
 * options there are to pick (string selects, checkbox groups). Returns the effective bounds.
 */
export function validateValueCounts(e: FormErrors, c: Obj, path: PathSegment[], limit: number, optionCount?: number): { min: number; max: number } {
  const min = int(e, c.min_values, [...path, 'min_values'], { min: 0, max: limit });
  const max = int(e, c.max_values, [...path, 'max_values'], { min: 1, max: limit });
  if (min !== undefined && max !== undefined && min > max) {
    e.add([...path, 'min_values'], 'SELECT_COMPONENT_MIN_VALUES_GREATER_THAN_MAX', 'min_values must be less than or equal to max_values');
  }
  if (optionCount !== undefined) {
    for (const [key, value] of [['min_values', min], ['max_values', max]] as const) {
      if (value !== undefined && value > optionCount) e.add([...path, key], 'BASE_TYPE_MAX', `Must be less than or equal to ${optionCount}.`);
    }
  }
  return { min: min ?? 1, max: max ?? 1 };
}

/** Preselected values: as many as the select lets a user pick, no more (Discord refuses the rest). */
function checkDefaultCount(e: FormErrors, path: PathSegment[], count: number, bounds: { min: number; max: number }): void {
  if (count > bounds.max) e.add(path, 'SELECT_COMPONENT_TOO_MANY_DEFAULTS', `Must have ${bounds.max} or fewer default values (max_values).`);
  else if (count > 0 && count < bounds.min) e.add(path, 'SELECT_COMPONENT_TOO_FEW_DEFAULTS', `Must have ${bounds.min} or more default values (min_values).`);
}

/** `default_values` of a user, role, mentionable or channel select; refused on a string select. */
function validateDefaultValues(e: FormErrors, c: Obj, path: PathSegment[], type: number, bounds: { min: number; max: number }): void {
  const at = [...path, 'default_values'];
  const allowed = DEFAULT_VALUE_TYPES[type];
  if (!allowed) {
    if (present(c.default_values)) e.add(at, 'BASE_TYPE_INVALID', 'This field is not allowed: string selects preselect with options[].default');
    return;
  }
  const list = arr(e, c.default_values, at, { max: 25 });
  if (!list) return;
  list.forEach((value, i) => {
    const v = obj(e, value, [...at, i], true);
    if (!v) return;
    const kind = str(e, v.type, [...at, i, 'type'], { min: 1, max: 16, required: true });
    if (kind !== undefined && !allowed.includes(kind)) e.add([...at, i, 'type'], 'BASE_TYPE_CHOICES', `Value must be one of (${allowed.join(', ')}).`);
    if (!present(v.id)) e.add([...at, i, 'id'], 'BASE_TYPE_REQUIRED', 'This field is required');
    else if (!SNOWFLAKE.test(String(v.id))) e.add([...at, i, 'id'], 'NUMBER_TYPE_COERCE', `Value "${String(v.id)}" is not snowflake.`);
  });
  checkDefaultCount(e, at, list.length, bounds);
}

function validateChannelTypes(e: FormErrors, c: Obj, path: PathSegment[], type: number): void {
  const at = [...path, 'channel_types'];
  if (type !== 8) {
    if (present(c.channel_types)) e.add(at, 'BASE_TYPE_INVALID', 'This field is not allowed: only channel selects filter by channel type');
    return;
  }
  const list = arr(e, c.channel_types, at, { max: CHANNEL_TYPES.length });
  list?.forEach((t, i) => {
    if (!CHANNEL_TYPES.includes(t as number)) e.add([...at, i], 'BASE_TYPE_CHOICES', `Value must be one of (${CHANNEL_TYPES.join(', ')}).`);
  });
}

export function validateSelect(e: FormErrors, walk: ComponentWalk, c: Obj, path: PathSegment[], inModal: boolean): void {
  trackCustomId(e, walk, c.custom_id, [...path, 'custom_id'], true);
  str(e, c.placeholder, [...path, 'placeholder'], { max: LIMITS.selectPlaceholder });
  if (!inModal) bool(e, c.disabled, [...path, 'disabled']);
  bool(e, c.required, [...path, 'required']);
  const type = c.type as number;
  const options = type === 3 ? validateOptions(e, c, path, { min: 1, max: LIMITS.selectOptions }) : undefined;
  const bounds = validateValueCounts(e, c, path, 25, options?.count);
  if (options) checkDefaultCount(e, [...path, 'options'], options.defaults, bounds);
  validateDefaultValues(e, c, path, type, bounds);
  validateChannelTypes(e, c, path, type);
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

export function validateMessageComponents(e: FormErrors, value: unknown, path: PathSegment[], flags: number): void {
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
