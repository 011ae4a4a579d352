/**
 * Typed errors of the key store. Messages carry guild ids, reasons and secret ids (kid) so an
 * operator can act on them, and never a key, a secret or a record's bytes.
 */

export type KeyRecordErrorReason = 'malformed' | 'unknown_version' | 'wrong_secret' | 'tampered_or_moved';

const RECORD_HINTS: Record<KeyRecordErrorReason, string> = {
  malformed: 'the stored record is not a valid key record',
  unknown_version: 'the stored record has a format version this build does not know (written by a newer bot?)',
  wrong_secret:
    'the record was encrypted under a secret that is not configured (check KEY_ENCRYPTION_SECRET / KEY_ENCRYPTION_SECRET_PREVIOUS)',
  tampered_or_moved: 'the record failed authentication: it was modified, or copied from another guild',
};

export class KeyRecordError extends Error {
  override readonly name = 'KeyRecordError';
  readonly reason: KeyRecordErrorReason;
  /** The kid the record names, when it could be read (tells the operator which secret is needed). */
  readonly kid: string | undefined;

  constructor(reason: KeyRecordErrorReason, detail?: string, kid?: string) {
    super(`${RECORD_HINTS[reason]}${kid === undefined ? '' : ` (kid ${kid})`}${detail ? `: ${detail}` : ''}`);
    this.reason = reason;
    this.kid = kid;
  }
}

export const KEY_STORE_ERROR_CODES = [
  /** A record exists but could not be decrypted or validated; `reason` says why. */
  'unreadable',
  /** The StoredKey or guild id passed in did not validate. */
  'invalid_input',
  /** SQLite failed or did not confirm a write. */
  'storage',
  /** The store was used after close(). */
  'closed',
] as const;
export type KeyStoreErrorCode = (typeof KEY_STORE_ERROR_CODES)[number];

export class KeyStoreError extends Error {
  override readonly name = 'KeyStoreError';
  readonly code: KeyStoreErrorCode;
  readonly guildId: string | undefined;
  readonly reason: KeyRecordErrorReason | undefined;

  constructor(
    code: KeyStoreErrorCode,
    message: string,
    opts: { guildId?: string; reason?: KeyRecordErrorReason; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.guildId = opts.guildId;
    this.reason = opts.reason;
  }
}

/** A SQLite/driver error reduced to fields that cannot carry stored values. */
export function describeStorageError(error: unknown): { code?: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    // SQLite messages describe the failure (SQLITE_BUSY, SQLITE_CANTOPEN...), not row contents, but
    // cap them anyway: this ends up in logs.
    return { ...(typeof code === 'string' ? { code } : {}), message: error.message.slice(0, 200) };
  }
  return { message: 'non-Error thrown by the storage layer' };
}

/** A KeyStoreError('storage') whose message ends with the driver's error code (or capped message). */
export function storageError(message: string, error: unknown, guildId?: string): KeyStoreError {
  const described = describeStorageError(error);
  // Drivers may quote the connection URL: its password never reaches the message.
  const detail = (described.code ?? described.message).replace(/(:\/\/[^:/?#@\s]*:)[^@\s]+@/g, '$1[redacted]@');
  return new KeyStoreError('storage', `${message}: ${detail}`, {
    ...(guildId === undefined ? {} : { guildId }),
    cause: error,
  });
}
