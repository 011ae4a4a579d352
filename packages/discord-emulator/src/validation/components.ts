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

export function validateSelect(e: FormErrors, walk: ComponentWalk, c: Obj, path: PathSegment[], inModal: boolean): void {
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
