/**
 * What discord.js does to every raw embed, component, modal and autocomplete choice before sending
 * it: `toSnakeCase`, which rebuilds the object and runs lodash's snakeCase on every key. feedbot
 * writes them in the API's shape already (snake_case), so for /feed list's panel that rebuild was
 * a fifth of the answer's CPU (bench scenario 1). This transformer hands discord.js's own
 * conversion only what it would change, and passes the rest through untouched: the result is the
 * same either way (a property test compares them).
 */
import { Options } from 'discord.js';

/** discord.js's default: camelCase keys to snake_case, builders to JSON, emoji strings resolved. */
const toSnakeCase = Options.createDefault().jsonTransformer as (value: unknown) => unknown;

/** A key lodash's snakeCase leaves as it is: lowercase words joined by single underscores. */
const SNAKE_KEY = /^[a-z]+(?:_[a-z]+)*$/;

function needsConversion(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || value instanceof Date) return false;
  if (Array.isArray(value)) return value.some(needsConversion);
  // A builder (toJSON) is turned into its JSON by the conversion.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const inner = (value as Record<string, unknown>)[key];
    if (!SNAKE_KEY.test(key) || (key === 'emoji' && typeof inner === 'string') || needsConversion(inner)) return true;
  }
  return false;
}

export function apiShapedJson(value: unknown): unknown {
  return needsConversion(value) ? toSnakeCase(value) : value;
}
