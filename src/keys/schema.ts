/**
 * Zod schemas for what the key store accepts, stores and decrypts. Everything read back from SQLite
 * is untrusted until it passes these: the file may be old, hand-edited or corrupted.
 */
import { z } from 'zod';
import { ApiKeySchema, ScopeSchema } from '@feedbot/feed-api-contract';

// Digits only: a guild id becomes part of a SQLite key (`namespace:guildId`) and of the associated
// data, so anything looser would let one id alias another.
export const GuildIdSchema = z.string().regex(/^\d{1,32}$/, 'must be a Discord snowflake (digits only)');

export const StoredKeySchema = z.object({
  /** The contract's rule, the same the /apikey form and the client hold a key to. */
  apiKey: ApiKeySchema,
  /** Discord user id of whoever set the key. */
  setBy: z.string().regex(/^\d{1,32}$/, 'must be a Discord user id'),
  /** ISO 8601 time the key was set. */
  setAt: z.iso.datetime({ offset: true }),
  /** The scopes the key was known to have when it was set. */
  scopes: z.array(ScopeSchema).max(16),
  /**
   * Whether `scopes` was confirmed against the API at set time (false: the bot could not check,
   * so `scopes` is a guess and a 403 is possible).
   */
  scopesKnown: z.boolean().optional(),
  /** Scopes the bot could not check at set time (neither confirmed nor refused). */
  unknownScopes: z.array(ScopeSchema).max(16).optional(),
  /**
   * Whether the key was tied to this guild when it was set: `verified` when GET /stats named the
   * guild or a feed forwards into one of its channels, `unverified` when nothing could tell (keys
   * proven to be another server's are never stored). Optional so records written before it load;
   * an absent value reads as `unverified`, since nothing was proved about those keys.
   */
  ownership: z.enum(['verified', 'unverified']).optional(),
});

export type StoredKey = z.infer<typeof StoredKeySchema>;
/** What is encrypted: the whole StoredKey (the key and its metadata). */
export type StoredKeyPayload = StoredKey;

/** Longer fields are refused before any pattern runs on them (a regex over megabytes overflows the stack). */
const MAX_FIELD_CHARS = 8192;

/**
 * Base64 in groups of four, padding only at the end of the last group. Written as a plain scan
 * plus a length check: the same strings as `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`
 * (test/keys/schema-base64.test.ts), whose groups cost 12 % of a KeyStore.get's CPU.
 */
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isCanonicalBase64 = (value: string): boolean => value.length % 4 === 0 && BASE64_CHARS.test(value);

/** Bytes canonical base64 of this length decodes to (the pattern above has been checked). */
const decodedLength = (value: string): number =>
  (value.length / 4) * 3 - (value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0);

// The byte count is computed from the canonical text rather than by decoding it: the same check,
// without a Buffer per field on every read (decryptKeyRecord decodes the fields once itself).
const base64Of = (bytes: number | undefined, what: string) =>
  z
    .string()
    .max(MAX_FIELD_CHARS)
    .refine((value) => {
      if (value.length > MAX_FIELD_CHARS) return false;
      if (!isCanonicalBase64(value)) return false;
      const length = decodedLength(value);
      return bytes === undefined ? length > 0 : length === bytes;
    }, `${what} must be canonical base64${bytes === undefined ? '' : ` of ${bytes} bytes`}`);

export const IV_BYTES = 12;
export const TAG_BYTES = 16;

export const KeyRecordV1Schema = z
  .object({
    v: z.literal(1),
    kid: z.string().regex(/^[0-9a-f]{8}$/, 'kid must be 8 lowercase hex characters'),
    iv: base64Of(IV_BYTES, 'iv'),
    tag: base64Of(TAG_BYTES, 'tag'),
    ct: base64Of(undefined, 'ct'),
  })
  .strict();

/** Short description of why a value failed a schema: paths and messages only, never the input. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
