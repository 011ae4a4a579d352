/**
 * The /feed integer options (src/interactions/integer-options.ts bounds them on both sides).
 */
import { POSTS_LIMIT_MAX } from '@feedbot/feed-api-contract';
import type { ChatInputCommandInteraction } from 'discord.js';
import { UserError } from '../../src/interactions/errors.js';
import { within, type IntegerOptionSpec } from '../../src/interactions/integer-options.js';

/** Feed ids are positive integers; the API's (and JavaScript's) largest exact one is 2^53 − 1. */
export const FEED_ID: IntegerOptionSpec = { name: 'id', label: 'opt.id.name', min: 1, max: Number.MAX_SAFE_INTEGER };
export const POSTS_LIMIT: IntegerOptionSpec = { name: 'limite', label: 'opt.limite.name', min: 1, max: POSTS_LIMIT_MAX };
export const LIST_PAGE: IntegerOptionSpec = { name: 'pagina', label: 'opt.pagina.name', min: 1, max: 1000 };

/** The required feed id. One outside the API's ids names no feed, and is told so like a 404. */
export function feedIdOption(interaction: ChatInputCommandInteraction): number {
  const id = interaction.options.getInteger(FEED_ID.name, true);
  if (!within(id, FEED_ID)) throw new UserError('error.notFound', { id });
  return id;
}
