/**
 * Reading an account name out of a pasted link. Only a profile link of the platform the feed API
 * forwards (Instagram: its vocabulary is `post`, `reel`, `story`) names an account; the first path
 * segment of any other link is not a name (`/p/C8x…` is a post, `/reel/…` a reel, and another
 * site's path means nothing here), so those are refused with a hint instead of guessed at.
 */

import { ACCOUNT_NAME_PATTERN } from '@feedbot/feed-api-contract';

/** The hosts whose links we read: the platform's web, mobile-web and bare domains. */
const PROFILE_HOSTS = new Set(['instagram.com', 'www.instagram.com', 'm.instagram.com']);

/**
 * First path segments that are the platform's own pages, never a profile. A name that equals one
 * of them cannot be registered there, so refusing them loses no account.
 */
const RESERVED_SEGMENTS = new Set([
  'p', 'reel', 'reels', 'tv', 'stories', 'explore', 'accounts', 'direct', 'about', 'legal',
  'developer', 'web', 'emails', 'challenge', 'session', 'privacy', 'terms', 'api', 'oauth',
  'static', 'graphql', 'ar', 'live', 'threads', 'broadcast', 'nametag', 'directory', 'topics',
]);

type ProfileUrlResult =
  | { kind: 'account'; name: string }
  | { kind: 'otherSite' }
  | { kind: 'notProfile' };

/** Does the input look like a link rather than a name (`https://…`, `www.…`, `host.tld/…`)? */
export function looksLikeUrl(input: string): boolean {
  return /^(https?:\/\/|www\.)/i.test(input) || /^[a-z0-9-]+(\.[a-z0-9-]+)+\//i.test(input);
}

/**
 * `https://www.instagram.com/nasa/?hl=es` → nasa; `/stories/nasa/34…/` → nasa (a story names its
 * account); `/p/…`, `/reel/…`, `/nasa/p/…` and pages of the platform → notProfile; other hosts →
 * otherSite. The name itself is checked by the caller against the contract's pattern.
 */
export function accountFromUrl(input: string): ProfileUrlResult {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(input) ? input : `https://${input}`);
  } catch {
    return { kind: 'otherSite' };
  }
  if (!PROFILE_HOSTS.has(url.hostname.toLowerCase()) || url.username || url.password || url.port) return { kind: 'otherSite' };
  const segments = url.pathname.split('/').filter(Boolean);
  const [first, second] = segments;
  if (first?.toLowerCase() === 'stories' && second && !RESERVED_SEGMENTS.has(second.toLowerCase())) {
    return { kind: 'account', name: second };
  }
  if (segments.length !== 1 || !first) return { kind: 'notProfile' };
  const name = first.startsWith('@') ? first.slice(1) : first;
  if (RESERVED_SEGMENTS.has(name.toLowerCase())) return { kind: 'notProfile' };
  return { kind: 'account', name };
}

/**
 * The profile page of `account` (`https://www.instagram.com/nasa/`), or undefined for a name the
 * contract would refuse: only a checked name is put into a link, so no text from the API can
 * bend the URL.
 */
export function profileUrl(account: string): string | undefined {
  return ACCOUNT_NAME_PATTERN.test(account) ? `https://www.instagram.com/${account}/` : undefined;
}
