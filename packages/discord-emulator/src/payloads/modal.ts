/** What the Discord client sends back for a modal the bot showed. */
import { ComponentType, type APIModalInteractionResponseCallbackData, type APIModalSubmissionComponent } from 'discord-api-types/v10';
import { InteractionInputError } from './options.js';

export type ModalValues = Record<string, string | string[]>;

/** What the Discord client sends back for a modal: the same layout, with the user's values. */
export function buildModalSubmission(modal: APIModalInteractionResponseCallbackData, values: ModalValues): APIModalSubmissionComponent[] {
  const known = new Set<string>();
  let nextId = 1;
  const submitField = (component: Record<string, unknown>): Record<string, unknown> => {
    const customId = String(component.custom_id ?? '');
    known.add(customId);
    const given = values[customId];
    if (component.type === ComponentType.TextInput) {
      const value = Array.isArray(given) ? given.join('\n') : (given ?? (typeof component.value === 'string' ? component.value : ''));
      const required = component.required !== false;
      if (required && value === '') throw new InteractionInputError(`text input "${customId}" is required`);
      const min = typeof component.min_length === 'number' ? component.min_length : 0;
      const max = typeof component.max_length === 'number' ? component.max_length : 4000;
      if (value !== '' && (value.length < min || value.length > max)) {
        throw new InteractionInputError(`text input "${customId}" must be ${min}–${max} characters`);
      }
      return { type: ComponentType.TextInput, id: (component.id as number | undefined) ?? nextId++, custom_id: customId, value };
    }
    const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
    return { type: component.type, id: (component.id as number | undefined) ?? nextId++, custom_id: customId, values: list };
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
  return out as unknown as APIModalSubmissionComponent[];
}
