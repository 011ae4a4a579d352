/**
 * Integer options bounded in one place for both sides: the definition sent to Discord
 * (setMinValue/setMaxValue) and the handlers, which check the bounds again. Discord enforces the
 * definition's bounds (and without them accepts anything up to ±2^53), but an old client, a stale
 * definition or a tampered payload can still deliver any number: a value outside the bounds is
 * explained, never sent to the API.
 */
import type { ChatInputCommandInteraction, SlashCommandIntegerOption } from 'discord.js';
import { InvalidOptionError } from './errors.js';
import type { MessageKey, Translator } from '../i18n/index.js';

export interface IntegerOptionSpec {
  name: string;
  /** The option's localized name, for the explanation. */
  label: MessageKey;
  min: number;
  max: number;
}

/** The definition side: name and bounds (the caller localizes and adds the rest). */
export function boundedOption(o: SlashCommandIntegerOption, spec: IntegerOptionSpec): SlashCommandIntegerOption {
  return o.setName(spec.name).setMinValue(spec.min).setMaxValue(spec.max);
}

/** Whether `value` is a whole number within the spec's bounds. */
export const within = (value: number, spec: IntegerOptionSpec) => Number.isSafeInteger(value) && value >= spec.min && value <= spec.max;

/** An optional option's value, or null when not given; out of bounds: the bounds, explained. */
export function integerOption(interaction: ChatInputCommandInteraction, t: Translator, spec: IntegerOptionSpec): number | null {
  const value = interaction.options.getInteger(spec.name);
  if (value === null || within(value, spec)) return value;
  throw new InvalidOptionError('error.optionRange', { option: t(spec.label), min: spec.min, max: spec.max });
}
