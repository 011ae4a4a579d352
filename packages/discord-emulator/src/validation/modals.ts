/** Interaction callback data for autocomplete choices (type 8) and modals (type 9). */
import { FormErrors, type PathSegment } from '../errors.js';
import { SELECT_TYPES, trackCustomId, validateOptions, validateSelect, validateValueCounts, type ComponentWalk } from './components.js';
import { LIMITS, arr, bool, int, isObject, obj, present, str, type Obj } from './fields.js';

export function validateChoice(e: FormErrors, choice: unknown, path: PathSegment[], valueType?: number): void {
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

/**
 * Checkbox groups (22, 1–10 options, up to 10 picked), radio groups (21, 2–10 options, one picked)
 * and single checkboxes (23): the components a Label holds besides text inputs and selects.
 */
function validateChoiceGroup(e: FormErrors, walk: ComponentWalk, c: Obj, path: PathSegment[]): void {
  trackCustomId(e, walk, c.custom_id, [...path, 'custom_id'], true);
  bool(e, c.required, [...path, 'required']);
  if (c.type === 23) {
    bool(e, c.default, [...path, 'default']);
    return;
  }
  const radio = c.type === 21;
  const options = validateOptions(e, c, path, { min: radio ? 2 : 1, max: 10 });
  const bounds = radio ? { min: 1, max: 1 } : validateValueCounts(e, c, path, 10, options?.count);
  if (radio) {
    for (const key of ['min_values', 'max_values']) if (present(c[key])) e.add([...path, key], 'BASE_TYPE_INVALID', 'This field is not allowed: a radio group picks one option');
  }
  if (options && options.defaults > bounds.max) {
    e.add([...path, 'options'], 'SELECT_COMPONENT_TOO_MANY_DEFAULTS', `Must have ${bounds.max} or fewer default values (max_values).`);
  }
}

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
      } else if (childType === 21 || childType === 22 || childType === 23) {
        validateChoiceGroup(e, walk, child, [...cpath, 'component']);
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
