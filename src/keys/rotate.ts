/**
 * Re-encrypts every record of a namespace from an old secret to a new one.
 *
 * Each record is rewritten on its own with a compare-and-swap on the stored bytes, so:
 *  - a crash half-way leaves every record under either the old or the new secret, both readable,
 *    and re-running finishes the job (records under the new secret are only verified and counted as
 *    alreadyCurrent: the kid says which secret a record needs);
 *  - a bot writing a key meanwhile is never overwritten with the older value: the swap fails and
 *    the fresh record is re-read and rotated (or found already current).
 */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { decryptKeyRecord, encryptKeyRecord, recordKid, secretKid } from './crypto.js';
import { KeyRecordError } from './errors.js';
import { assertSecret } from './secret.js';
import type { KeyBackend, RawEntry } from './backend.js';
import { openBackend } from './backends.js';

interface RotateKeysOptions {
  databaseUrl: string;
  oldSecret: Buffer;
  newSecret: Buffer;
  namespace?: string;
  logger?: Logger;
}

interface RotateKeysResult {
  rotated: number;
  alreadyCurrent: number;
  /** Guild ids whose record could not be rotated (unreadable under both secrets, tampered, malformed). */
  failed: string[];
}

const MAX_ATTEMPTS = 5;

type Outcome = 'rotated' | 'alreadyCurrent' | 'failed' | 'gone';

export async function rotateKeys(opts: RotateKeysOptions): Promise<RotateKeysResult> {
  assertSecret(opts.oldSecret, 'oldSecret');
  assertSecret(opts.newSecret, 'newSecret');
  if (opts.oldSecret.equals(opts.newSecret)) {
    throw new Error('the new secret is the same as the old one; generate a new one with `npm run secret`');
  }
  const logger = (opts.logger ?? silentLogger()).child({ component: 'key-rotation' });
  const db = await openBackend({
    databaseUrl: opts.databaseUrl,
    ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
    logger,
    mustExist: true,
  });
  const result: RotateKeysResult = { rotated: 0, alreadyCurrent: 0, failed: [] };
  try {
    const entries = await db.listEntries();
    logger.info(
      { records: entries.length, fromKid: secretKid(opts.oldSecret), toKid: secretKid(opts.newSecret) },
      'rotating key records',
    );
    for (const entry of entries) {
      const outcome = await rotateEntry(db, entry, opts.oldSecret, opts.newSecret, logger);
      if (outcome === 'rotated') result.rotated += 1;
      else if (outcome === 'alreadyCurrent') result.alreadyCurrent += 1;
      else if (outcome === 'failed') result.failed.push(entry.guildId);
    }
  } finally {
    await db.close();
  }
  logger.info(
    { rotated: result.rotated, alreadyCurrent: result.alreadyCurrent, failed: result.failed.length },
    'key rotation finished',
  );
  return result;
}

async function rotateEntry(
  db: KeyBackend,
  first: RawEntry,
  oldSecret: Buffer,
  newSecret: Buffer,
  logger: Logger,
): Promise<Outcome> {
  const { guildId } = first;
  const options = { namespace: db.namespace };
  let entry: RawEntry | undefined = first;
  for (let attempt = 1; entry !== undefined && attempt <= MAX_ATTEMPTS; attempt += 1) {
    try {
      if (recordKid(entry.record) === secretKid(newSecret)) {
        // Verified, not just trusted by kid: a damaged record should be reported now, not at next use.
        decryptKeyRecord(entry.record, guildId, newSecret, options);
        return 'alreadyCurrent';
      }
      const payload = decryptKeyRecord(entry.record, guildId, oldSecret, options);
      const rotated = encryptKeyRecord(payload, guildId, newSecret, options);
      // No announcement: rotation leaves the plaintext as it was, so no process's cache is wrong.
      if (await db.replaceIf(guildId, entry.raw, rotated)) return 'rotated';
    } catch (error) {
      if (!(error instanceof KeyRecordError)) throw error;
      logger.warn({ guildId, reason: error.reason, kid: error.kid }, 'key record cannot be rotated');
      return 'failed';
    }
    // The bot changed this record between our read and our write: look again.
    entry = await db.readEntry(guildId);
  }
  if (entry === undefined) {
    logger.info({ guildId }, 'key record deleted during rotation');
    return 'gone';
  }
  logger.warn({ guildId }, 'key record kept changing during rotation; re-run to rotate it');
  return 'failed';
}
