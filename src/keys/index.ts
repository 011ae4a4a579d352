export { KeyStore, maskKey, rotateKeys, type KeyStoreOptions, type KeyStoreAudit } from './store.js';
export type { RotateKeysOptions, RotateKeysResult } from './rotate.js';
export { KeyStoreError, KeyRecordError, type KeyStoreErrorCode, type KeyRecordErrorReason } from './errors.js';
export { StoredKeySchema, GuildIdSchema, type StoredKey, type StoredKeyPayload } from './schema.js';
export { parseSecret, generateSecret, secretsFromEnv, SecretFormatError, type SecretsFromEnv } from './secret.js';
export {
  encryptKeyRecord,
  decryptKeyRecord,
  secretKid,
  DEFAULT_NAMESPACE,
  type KeyRecordV1,
  type KeyRecord,
} from './crypto.js';
export { parseDatabaseUrl } from './database-url.js';
export { parseStoreUrl, type StoreLocation } from './store-url.js';
export { migrateKeys, verifyKeys, type MigrateKeysOptions, type MigrateKeysResult, type VerifyKeysResult } from './migrate.js';
