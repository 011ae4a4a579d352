/**
 * The encrypted key record, version 1. Pure functions: no I/O, no logging.
 *
 * AES-256-GCM with a fresh random 96-bit IV per write. The associated data binds the namespace,
 * the record version and the guild id, so a record copied under another guild (or namespace, or
 * relabelled as another version) fails authentication. The AES key is derived from the secret with
 * HKDF rather than used directly, and the kid (which secret a record needs) comes from a separate
 * derivation, so publishing a kid reveals nothing usable about the key.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomFillSync } from 'node:crypto';
import { KeyRecordError } from './errors.js';
import {
  IV_BYTES,
  KeyRecordV1Schema,
  StoredKeySchema,
  TAG_BYTES,
  describeIssues,
  type StoredKeyPayload,
} from './schema.js';
import { SECRET_BYTES, assertSecret } from './secret.js';

export const DEFAULT_NAMESPACE = 'guild-keys';
const CURRENT_RECORD_VERSION = 1;

export interface KeyRecordV1 {
  v: 1;
  /** First 8 hex characters of a hash of the secret: names the secret, reveals nothing about it. */
  kid: string;
  iv: string;
  tag: string;
  ct: string;
}

export type KeyRecord = KeyRecordV1;

interface RecordOptions {
  /** Keyv namespace the record lives in; part of the associated data. */
  namespace?: string;
}

const derivedKeys = new WeakMap<Buffer, Buffer>();
const kids = new WeakMap<Buffer, string>();

function encryptionKey(secret: Buffer): Buffer {
  let key = derivedKeys.get(secret);
  if (key === undefined) {
    key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'feedbot:key-store:aes-256-gcm:v1', 32));
    derivedKeys.set(secret, key);
  }
  return key;
}

export function secretKid(secret: Buffer): string {
  assertSecret(secret);
  let kid = kids.get(secret);
  if (kid === undefined) {
    kid = createHash('sha256').update('feedbot:key-store:kid\0').update(secret).digest('hex').slice(0, 8);
    kids.set(secret, kid);
  }
  return kid;
}

/**
 * IVs are cut from a pool of CSPRNG bytes refilled every IV_POOL_BYTES / 12 writes: one
 * randomBytes(12) per write costs 2 µs, a quarter of what sealing a record costs (profile of
 * KeyStore.set). Each IV is still 96 fresh random bits used once: a slice is handed out once and
 * the pool is only overwritten, by a new draw, after every slice of it has been handed out, and
 * every use is synchronous (sealKeyRecord encodes the IV before returning).
 */
const IV_POOL_BYTES = 4096 - (4096 % IV_BYTES);
const ivPool = Buffer.alloc(IV_POOL_BYTES);
let ivOffset = IV_POOL_BYTES;

function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > IV_POOL_BYTES) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

function associatedData(guildId: string, version: number, namespace: string = DEFAULT_NAMESPACE): Buffer {
  return Buffer.from(`feedbot:${namespace}:v${version}:${guildId}`, 'utf8');
}

export function encryptKeyRecord(
  plaintext: StoredKeyPayload,
  guildId: string,
  secret: Buffer,
  opts: RecordOptions = {},
): KeyRecordV1 {
  assertSecret(secret);
  const payload = StoredKeySchema.safeParse(plaintext);
  if (!payload.success) {
    throw new TypeError(`key payload is invalid: ${describeIssues(payload.error)}`);
  }
  return sealKeyRecord(payload.data, guildId, secret, opts);
}

/**
 * encryptKeyRecord for a payload the caller has just validated with StoredKeySchema (KeyStore.set
 * does, to answer with its own error): the same record, without parsing the payload a second time.
 */
export function sealKeyRecord(payload: StoredKeyPayload, guildId: string, secret: Buffer, opts: RecordOptions = {}): KeyRecordV1 {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(guildId, 1, opts.namespace));
  const clear = Buffer.from(JSON.stringify(payload), 'utf8');
  const ct = joined(cipher.update(clear), cipher.final());
  clear.fill(0);
  return {
    v: 1,
    kid: secretKid(secret),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ct: ct.toString('base64'),
  };
}

/** GCM's final() gives nothing more than update() did: no copy into a new Buffer for it. */
const joined = (head: Buffer, tail: Buffer): Buffer => (tail.length === 0 ? head : Buffer.concat([head, tail]));

/** The record's kid if it is a v1-shaped object, without validating the rest. */
export function recordKid(record: unknown): string | undefined {
  if (typeof record === 'object' && record !== null && 'kid' in record) {
    const kid = (record as { kid: unknown }).kid;
    if (typeof kid === 'string' && /^[0-9a-f]{8}$/.test(kid)) return kid;
  }
  return undefined;
}

/**
 * Validates and decrypts a stored record. `secret` may be a list (current first, then old ones):
 * the kid picks which one to try, so a record under an unconfigured secret is told apart from a
 * tampered one.
 */
export function decryptKeyRecord(
  record: unknown,
  guildId: string,
  secret: Buffer | Buffer[],
  opts: RecordOptions = {},
): StoredKeyPayload {
  const secrets = Array.isArray(secret) ? secret : [secret];
  // The message is only built for a secret that fails (a template per secret per read showed in profiles).
  for (let index = 0; index < secrets.length; index++) {
    const candidate = secrets[index];
    if (!Buffer.isBuffer(candidate) || candidate.length !== SECRET_BYTES) assertSecret(candidate, `secret[${index}]`);
  }

  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new KeyRecordError('malformed', 'not an object');
  }
  const version = (record as { v?: unknown }).v;
  if (version === undefined) throw new KeyRecordError('malformed', 'no version field');
  if (version !== CURRENT_RECORD_VERSION) {
    throw new KeyRecordError(
      typeof version === 'number' || typeof version === 'string' ? 'unknown_version' : 'malformed',
      typeof version === 'number' && Number.isSafeInteger(version) ? `version ${version}` : 'unsupported version field',
    );
  }
  const parsed = KeyRecordV1Schema.safeParse(record);
  if (!parsed.success) throw new KeyRecordError('malformed', describeIssues(parsed.error), recordKid(record));
  const { kid, iv, tag, ct } = parsed.data;

  const matching: Buffer[] = [];
  for (const candidate of secrets) if (secretKid(candidate) === kid) matching.push(candidate);
  if (matching.length === 0) throw new KeyRecordError('wrong_secret', undefined, kid);

  let clear: Buffer | undefined;
  // Normally exactly one secret matches; two would mean a 32-bit kid collision between configured
  // secrets, which is astronomically unlikely but costs nothing to handle.
  for (const candidate of matching) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey(candidate), Buffer.from(iv, 'base64'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(associatedData(guildId, 1, opts.namespace));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      clear = joined(decipher.update(Buffer.from(ct, 'base64')), decipher.final());
      break;
    } catch {
      // Authentication failed under this secret; try the next matching one, if any.
    }
  }
  if (clear === undefined) throw new KeyRecordError('tampered_or_moved', undefined, kid);

  let json: unknown;
  try {
    json = JSON.parse(clear.toString('utf8'));
  } catch {
    throw new KeyRecordError('malformed', 'decrypted payload is not JSON', kid);
  } finally {
    clear.fill(0);
  }
  const payload = StoredKeySchema.safeParse(json);
  if (!payload.success) {
    throw new KeyRecordError('malformed', `decrypted payload is invalid: ${describeIssues(payload.error)}`, kid);
  }
  return payload.data;
}
