/**
 * Parsing and validation of user-typed option values that Discord cannot validate for us.
 */
import { ACCOUNT_NAME_PATTERN, CONTENT_KINDS, type ContentKind } from '@feedbot/feed-api-contract';
import { InvalidOptionError } from './errors.js';
import { truncate } from '../render/text.js';
import { accountFromUrl, looksLikeUrl } from '../api/profile-url.js';

/**
 * Accepts `name`, `@name` or a profile URL (`https://www.instagram.com/name`, with or without
 * `www.`, a trailing slash, query or fragment; a story link names its account) and returns the bare
 * account name, or throws a user error that says what to paste instead.
 */
export function parseAccount(input: string): string {
  const raw = input.trim();
  const shown = truncate(raw.replace(/`/g, "'"), 80) || ' ';
  let candidate = raw.startsWith('@') ? raw.slice(1) : raw;
  if (looksLikeUrl(raw)) {
    const found = accountFromUrl(raw);
    if (found.kind === 'otherSite') throw new InvalidOptionError('create.account.otherSite', { value: shown });
    if (found.kind === 'notProfile') throw new InvalidOptionError('create.account.notProfile', { value: shown });
    candidate = found.name;
  }
  if (!ACCOUNT_NAME_PATTERN.test(candidate)) {
    throw new InvalidOptionError('create.badAccount', { value: shown });
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
