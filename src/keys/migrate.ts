/**
 * Copies a namespace's records from one backend to another without decrypting them: each stored
 * envelope is written byte for byte, so the records stay encrypted under the secrets they had
 * (and bound to their guild and namespace) and no secret is needed. Records already identical on
 * the destination are left alone, so re-running is safe; a record that differs is overwritten
 * with the source's. verifyKeys compares both sides without writing.
 */
import type { KeyBackend } from './backend.js';
import { openBackend } from './backends.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';

export interface MigrateKeysOptions {
  from: string;
  to: string;
  namespace?: string;
  logger?: Logger;
  /** Called after each record with how many are done out of how many. */
  onProgress?: (done: number, total: number) => void;
}

export interface MigrateKeysResult {
  total: number;
  copied: number;
  /** Already identical on the destination. */
  unchanged: number;
}

export interface VerifyKeysResult {
  total: number;
  matching: number;
  /** In the source only. */
  missing: string[];
  /** On both sides with different bytes. */
  different: string[];
  /** On the destination only (not an error for a migration, reported for the operator). */
  extra: string[];
}

async function withBoth<T>(opts: MigrateKeysOptions, run: (from: KeyBackend, to: KeyBackend) => Promise<T>): Promise<T> {
  const logger = (opts.logger ?? silentLogger()).child({ component: 'key-migration' });
  const namespace = opts.namespace === undefined ? {} : { namespace: opts.namespace };
  const from = await openBackend({ databaseUrl: opts.from, logger, mustExist: true, ...namespace });
  try {
    const to = await openBackend({ databaseUrl: opts.to, logger, ...namespace });
    try {
      if (from.kind === to.kind && from.where === to.where) throw new Error('--from and --to name the same key store');
      return await run(from, to);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

export function migrateKeys(opts: MigrateKeysOptions): Promise<MigrateKeysResult> {
  return withBoth(opts, async (from, to) => {
    const entries = await from.listEntries();
    const result: MigrateKeysResult = { total: entries.length, copied: 0, unchanged: 0 };
    for (const [index, entry] of entries.entries()) {
      const existing = await to.readEntry(entry.guildId);
      if (existing?.raw === entry.raw) {
        result.unchanged += 1;
      } else {
        await to.writeRaw(entry.guildId, entry.raw);
        result.copied += 1;
      }
      opts.onProgress?.(index + 1, entries.length);
    }
    return result;
  });
}

export function verifyKeys(opts: MigrateKeysOptions): Promise<VerifyKeysResult> {
  return withBoth(opts, async (from, to) => {
    const source = await from.listEntries();
    const destination = new Map((await to.listEntries()).map((entry) => [entry.guildId, entry.raw]));
    const result: VerifyKeysResult = { total: source.length, matching: 0, missing: [], different: [], extra: [] };
    for (const entry of source) {
      const raw = destination.get(entry.guildId);
      destination.delete(entry.guildId);
      if (raw === undefined) result.missing.push(entry.guildId);
      else if (raw === entry.raw) result.matching += 1;
      else result.different.push(entry.guildId);
    }
    result.extra = [...destination.keys()];
    return result;
  });
}
