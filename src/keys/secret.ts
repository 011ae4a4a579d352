/**
 * The key-encryption secret: 32 random bytes, carried in the environment as base64.
 *
 * Error messages name the variable and describe what is wrong, but never repeat the value: a
 * half-pasted secret is still most of a secret.
 */
import { randomBytes } from 'node:crypto';

export const SECRET_BYTES = 32;

// Standard base64 (what `npm run secret` prints) and base64url are both accepted: operators copy
// secrets through tools that sometimes convert between the two.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export class SecretFormatError extends Error {
  override readonly name = 'SecretFormatError';
}

export function parseSecret(base64: string, name = 'KEY_ENCRYPTION_SECRET'): Buffer {
  if (typeof base64 !== 'string') {
    throw new SecretFormatError(`${name} must be a string`);
  }
  const trimmed = base64.trim();
  if (trimmed.length === 0) {
    throw new SecretFormatError(`${name} is empty; generate one with \`npm run secret\``);
  }
  let decoded: Buffer;
  if (BASE64.test(trimmed)) {
    decoded = Buffer.from(trimmed, 'base64');
  } else if (BASE64URL.test(trimmed)) {
    decoded = Buffer.from(trimmed, 'base64url');
  } else {
    throw new SecretFormatError(
      `${name} is not valid base64 (${trimmed.length} characters); generate one with \`npm run secret\``,
    );
  }
  if (decoded.length !== SECRET_BYTES) {
    const got = decoded.length;
    decoded.fill(0);
    throw new SecretFormatError(
      `${name} must decode to exactly ${SECRET_BYTES} bytes but decodes to ${got}; generate one with \`npm run secret\``,
    );
  }
  return decoded;
}

export function generateSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64');
}

/** Throws unless `secret` is a usable key (callers may pass buffers they did not get from parseSecret). */
export function assertSecret(secret: unknown, what = 'secret'): asserts secret is Buffer {
  if (!Buffer.isBuffer(secret) || secret.length !== SECRET_BYTES) {
    throw new TypeError(`${what} must be a ${SECRET_BYTES}-byte Buffer (use parseSecret)`);
  }
}
