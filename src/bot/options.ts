/**
 * Parsing and validation of user-typed option values that Discord cannot validate for us.
 */
import { ACCOUNT_NAME_PATTERN, CONTENT_KINDS, type ContentKind } from '@feedbot/feed-api-contract';
import { InvalidOptionError } from './errors.js';
import { truncate } from '../render/text.js';

/**
 * Accepts `name`, `@name` or a profile URL (`https://host/name`, with or without `www.`, a
 * trailing slash, query or fragment) and returns the bare account name, or throws a user error.
 */
export function parseAccount(input: string): string {
  const raw = input.trim();
  let candidate = raw.startsWith('@') ? raw.slice(1) : raw;
  if (/^(https?:\/\/|www\.)/i.test(raw) || /^[a-z0-9-]+(\.[a-z0-9-]+)+\//i.test(raw)) {
    try {
      const url = new URL(/^https?:\/\//i.test(raw) ? raw : `https://${raw}`);
      const segments = url.pathname.split('/').filter(Boolean);
      candidate = segments[0] ?? '';
      if (candidate.startsWith('@')) candidate = candidate.slice(1);
    } catch {
      candidate = '';
    }
  }
  if (!ACCOUNT_NAME_PATTERN.test(candidate)) {
    throw new InvalidOptionError('create.badAccount', { value: truncate(raw.replace(/`/g, "'"), 80) || ' ' });
  }
  return candidate;
}

/** Every non-empty combination of kinds, in a stable order, as `post+reel` style values. */
export const KIND_COMBINATIONS: ContentKind[][] = (() => {
  const combos: ContentKind[][] = [];
  for (let mask = 1; mask < 1 << CONTENT_KINDS.length; mask++) {
    combos.push(CONTENT_KINDS.filter((_, i) => mask & (1 << i)));
  }
  return combos.sort((a, b) => a.length - b.length);
})();

export function parseKinds(value: string): ContentKind[] {
  const parts = value.split('+');
  const kinds = CONTENT_KINDS.filter((k) => parts.includes(k));
  if (kinds.length === 0 || kinds.length !== parts.length) {
    throw new InvalidOptionError('error.badOption', { option: 'tipos', reason: value });
  }
  return kinds;
}

/** One content kind, or undefined for no filter (Discord only offers the known ones). */
export function knownKind(value: string | null): ContentKind | undefined {
  return CONTENT_KINDS.find((k) => k === value);
}
