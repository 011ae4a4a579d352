/**
 * API key material. The plaintext exists only in the return value of `generateApiKey` (shown
 * once); the store keeps the SHA-256 hash (for lookup) and the last four characters (for a masked
 * display, as the spec's dashboard does).
 */
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'fbk_';
const KEY_BODY_LENGTH = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Anything else is rejected before touching the database. */
export const API_KEY_PATTERN = /^fbk_[0-9A-Za-z]{40}$/;

/** 40 base62 characters ≈ 238 bits, drawn without modulo bias. */
export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248) body += BASE62[byte % 62];
      if (body.length === KEY_BODY_LENGTH) break;
    }
  }
  return API_KEY_PREFIX + body;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function maskApiKey(last4: string): string {
  return `${API_KEY_PREFIX}${'•'.repeat(8)}${last4}`;
}

export type BearerResult = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'key'; key: string };

/** Reads `Authorization: Bearer <key>` (scheme case-insensitive, RFC 6750). */
export function parseBearer(header: string | string[] | undefined): BearerResult {
  if (header === undefined || header === '') return { kind: 'missing' };
  if (Array.isArray(header)) return { kind: 'malformed' };
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  if (!match?.[1] || !API_KEY_PATTERN.test(match[1])) return { kind: 'malformed' };
  return { kind: 'key', key: match[1] };
}
