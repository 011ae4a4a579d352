/**
 * What the Discord client lets a user pick in a select, checkbox group or radio group: no more and
 * no fewer values than the component allows, only its options, a channel of a type it offers. The
 * same rules for a select in a message and one in a modal's Label.
 */
import { ComponentType } from 'discord-api-types/v10';
import type { NormalizedGuild } from '../guilds.js';
import { InteractionInputError } from './input.js';

type Component = Record<string, unknown>;

const OPTION_TYPES = new Set<number>([ComponentType.StringSelect, ComponentType.CheckboxGroup, ComponentType.RadioGroup]);

/**
 * The bounds on how many values a component takes. In a modal, a select or group that is not
 * `required` may be left empty (Discord's client then sends no values).
 */
export function pickBounds(component: Component, inModal: boolean): { min: number; max: number } {
  const optionCount = Array.isArray(component.options) ? component.options.length : 25;
  if (component.type === ComponentType.RadioGroup) return { min: component.required === false ? 0 : 1, max: 1 };
  const defaultMax = component.type === ComponentType.CheckboxGroup ? optionCount : 1;
  const max = typeof component.max_values === 'number' ? component.max_values : defaultMax;
  let min = typeof component.min_values === 'number' ? component.min_values : 1;
  if (inModal && component.required === false) min = 0;
  return { min, max };
}

/** Throws what the client would not let the user send; `guild` for channel selects' channel_types. */
export function checkPicks(component: Component, values: string[], opts: { inModal: boolean; guild: NormalizedGuild }): void {
  const customId = String(component.custom_id ?? '');
  const { min, max } = pickBounds(component, opts.inModal);
  if (values.length < min || values.length > max) {
    throw new InteractionInputError(`"${customId}" takes ${min}–${max} values, got ${values.length}`);
  }
  if (new Set(values).size !== values.length) throw new InteractionInputError(`"${customId}" was given the same value twice`);
  const type = component.type as number;
  if (OPTION_TYPES.has(type)) {
    const allowed = new Set((component.options as { value: string }[]).map((o) => o.value));
    const bad = values.find((v) => !allowed.has(v));
    if (bad !== undefined) throw new InteractionInputError(`"${customId}" has no option "${bad}"`);
  }
  if (type === ComponentType.ChannelSelect && Array.isArray(component.channel_types) && component.channel_types.length > 0) {
    const types = component.channel_types as number[];
    for (const id of values) {
      const channel = opts.guild.channels.find((c) => c.id === id);
      if (channel && !types.includes(channel.type)) {
        throw new InteractionInputError(`"${customId}" offers channels of types ${types.join(', ')}; #${channel.name} is of type ${channel.type}`);
      }
    }
  }
}
