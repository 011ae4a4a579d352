/**
 * The /feed integer options, bounded in one place for both sides: the definition sent to Discord
 * (setMinValue/setMaxValue) and the handlers, which check the bounds again. Discord enforces the
 * definition's bounds (and without them accepts anything up to ±2^53), but an old client, a stale
 * definition or a tampered payload can still deliver any number: a value outside the bounds is
 * explained, never sent to the API.
 */
import { POSTS_LIMIT_MAX } from '@feedbot/feed-api-contract';
import type { ChatInputCommandInteraction, SlashCommandIntegerOption } from 'discord.js';
import { InvalidOptionError, UserError } from '../../src/bot/errors.js';
import type { MessageKey, Translator } from '../../src/i18n/index.js';

export interface IntegerOptionSpec {
  name: string;
  /** The option's localized name, for the explanation. */
  label: MessageKey;
  min: number;
  max: number;
}

/** Feed ids are positive integers; the API's (and JavaScript's) largest exact one is 2^53 − 1. */
export const FEED_ID: IntegerOptionSpec = { name: 'id', label: 'opt.id.name', min: 1, max: Number.MAX_SAFE_INTEGER };
export const POSTS_LIMIT: IntegerOptionSpec = { name: 'limite', label: 'opt.limite.name', min: 1, max: POSTS_LIMIT_MAX };
export const LIST_PAGE: IntegerOptionSpec = { name: 'pagina', label: 'opt.pagina.name', min: 1, max: 1000 };

/** The definition side: name and bounds (the caller localizes and adds the rest). */
export function boundedOption(o: SlashCommandIntegerOption, spec: IntegerOptionSpec): SlashCommandIntegerOption {
  return o.setName(spec.name).setMinValue(spec.min).setMaxValue(spec.max);
}

const within = (value: number, spec: IntegerOptionSpec) => Number.isSafeInteger(value) && value >= spec.min && value <= spec.max;

/** An optional option's value, or null when not given; out of bounds: the bounds, explained. */
export function integerOption(interaction: ChatInputCommandInteraction, t: Translator, spec: IntegerOptionSpec): number | null {
  const value = interaction.options.getInteger(spec.name);
  if (value === null || within(value, spec)) return value;
  throw new InvalidOptionError('error.optionRange', { option: t(spec.label), min: spec.min, max: spec.max });
}

/** The required feed id. One outside the API's ids names no feed, and is told so like a 404. */
export function feedIdOption(interaction: ChatInputCommandInteraction): number {
  const id = interaction.options.getInteger(FEED_ID.name, true);
  if (!within(id, FEED_ID)) throw new UserError('error.notFound', { id });
  return id;
}
