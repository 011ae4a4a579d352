/** What the Discord client sends back for a modal the bot showed. */
import { ComponentType, type APIInteractionDataResolved, type APIModalInteractionResponseCallbackData, type APIModalSubmissionComponent } from 'discord-api-types/v10';
import type { NormalizedGuild } from '../guilds.js';
import { InteractionInputError } from './options.js';
import { checkPicks } from './picks.js';

/**
 * What the user fills in, by custom_id: a text input's text, the values picked in a select,
 * checkbox group or radio group (one string or a list), a checkbox's `true`/`false`.
 */
export type ModalValues = Record<string, string | string[] | boolean>;

/** Resolves the users, roles and channels picked in a typed select into `resolved` (throws for unknown ids). */
export type SelectResolver = (componentType: number, values: string[], resolved: APIInteractionDataResolved, customId: string) => void;

export interface ModalSubmission {
  components: APIModalSubmissionComponent[];
  /** The users, members, roles and channels typed selects picked; undefined when none. */
  resolved?: APIInteractionDataResolved;
}

const TYPED_SELECTS = new Set<number>([ComponentType.UserSelect, ComponentType.RoleSelect, ComponentType.MentionableSelect, ComponentType.ChannelSelect]);

/** A text input's value: what was typed, else its prefilled value; required unless it says not. */
function textInputValue(component: Record<string, unknown>, given: ModalValues[string] | undefined, customId: string): string {
  if (typeof given === 'boolean') throw new InteractionInputError(`text input "${customId}" takes text, not ${given}`);
  const value = Array.isArray(given) ? given.join('\n') : (given ?? (typeof component.value === 'string' ? component.value : ''));
  const required = component.required !== false;
  if (required && value === '') throw new InteractionInputError(`text input "${customId}" is required`);
  const min = typeof component.min_length === 'number' ? component.min_length : 0;
  const max = typeof component.max_length === 'number' ? component.max_length : 4000;
  if (value !== '' && (value.length < min || value.length > max)) {
    throw new InteractionInputError(`text input "${customId}" must be ${min}–${max} characters`);
  }
  return value;
}

/** What a component left untouched submits: its preselected options or default values. */
function preselected(component: Record<string, unknown>): string[] {
  if (Array.isArray(component.options)) return (component.options as { value: string; default?: boolean }[]).filter((o) => o.default === true).map((o) => o.value);
  if (Array.isArray(component.default_values)) return (component.default_values as { id: string }[]).map((d) => String(d.id));
  return [];
}

/**
 * What the Discord client sends back for a modal: the same layout, each field with the user's
 * value (Labels echo their component with `custom_id` and `value`/`values`), and `resolved` for
 * the users, roles and channels picked in typed selects. `guild` and `resolve` are needed only
 * for modals with typed selects.
 */
export function buildModalSubmission(
  modal: APIModalInteractionResponseCallbackData,
  values: ModalValues,
  where?: { guild: NormalizedGuild; resolve: SelectResolver },
): ModalSubmission {
  const known = new Set<string>();
  const resolved: APIInteractionDataResolved = {};
  let nextId = 1;
  const submitField = (component: Record<string, unknown>): Record<string, unknown> => {
    const customId = String(component.custom_id ?? '');
    known.add(customId);
    const given = values[customId];
    const id = (component.id as number | undefined) ?? nextId++;
    const type = component.type as number;
    if (type === ComponentType.TextInput) return { type, id, custom_id: customId, value: textInputValue(component, given, customId) };
    if (type === ComponentType.Checkbox) {
      if (given !== undefined && typeof given !== 'boolean') throw new InteractionInputError(`checkbox "${customId}" takes true or false`);
      return { type, id, custom_id: customId, value: given ?? component.default === true };
    }
    if (typeof given === 'boolean') throw new InteractionInputError(`"${customId}" takes values, not ${given}`);
    const list = given === undefined ? preselected(component) : Array.isArray(given) ? given : [given];
    if (where) checkPicks(component, list, { inModal: true, guild: where.guild });
    if (TYPED_SELECTS.has(type) && list.length > 0) {
      if (!where) throw new InteractionInputError(`select "${customId}" needs a guild to resolve its values`);
      where.resolve(type, list, resolved, customId);
    }
    if (type === ComponentType.RadioGroup) return { type, id, custom_id: customId, value: list[0] ?? null };
    return { type, id, custom_id: customId, values: list };
  };
  const out = (modal.components as unknown as Record<string, unknown>[]).map((top) => {
    const id = (top.id as number | undefined) ?? nextId++;
    if (top.type === ComponentType.Label) {
      return { type: ComponentType.Label, id, component: submitField(top.component as Record<string, unknown>) };
    }
    if (top.type === ComponentType.ActionRow) {
      return { type: ComponentType.ActionRow, id, components: (top.components as Record<string, unknown>[]).map(submitField) };
    }
    return { type: top.type, id };
  });
  for (const key of Object.keys(values)) {
    if (!known.has(key)) throw new InteractionInputError(`the modal has no field "${key}"`);
  }
  const components = out as unknown as APIModalSubmissionComponent[];
  return Object.keys(resolved).length > 0 ? { components, resolved } : { components };
}
