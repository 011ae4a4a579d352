/**
 * Copies a namespace's records from one backend to another without decrypting them: each stored
 * envelope is written byte for byte, so the records stay encrypted under the secrets they had
 * (and bound to their guild and namespace) and no secret is needed. Records already identical on
 * the destination are left alone, so re-running is safe; a record that differs is overwritten
 * with the source's. verifyKeys compares both sides without writing.
 */
import type { KeyBackend } from './backend.js';
import { openBackend } from './backends.js';
import { KeyStoreError } from './errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { sameStore } from './store-identity.js';
import { parseStoreUrl, redactPassword } from './store-url.js';
import { addressOf, whyUnreachable } from './unreachable.js';

interface MigrateKeysOptions {
  from: string;
  to: string;
  /** How the operator gave each URL, for messages (default `--from` / `--to`; e.g. `SOURCE_URL`). */
  fromName?: string;
  toName?: string;
  namespace?: string;
  logger?: Logger;
  /** Called after each record with how many are done out of how many (awaited). */
  onProgress?: (done: number, total: number) => void | Promise<void>;
}

interface MigrateKeysResult {
  total: number;
  copied: number;
  /** Already identical on the destination. */
  unchanged: number;
}

interface VerifyKeysResult {
  total: number;
  matching: number;
  /** In the source only. */
  missing: string[];
  /** On both sides with different bytes. */
  different: string[];
  /** On the destination only (not an error for a migration, reported for the operator). */
  extra: string[];
}

type SideName = 'source' | 'target';
interface Side {
  backend: KeyBackend;
  /** Runs one operation on this side; a failure says which side it was (see sideFailed). */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** Progress when a side failed, for its message: how far the copy got. */
interface Progress {
  done: number;
  total: number | undefined;
  copying: boolean;
}

/**
 * A side's failure as one line: which side (source or target, and how it was given), where, why,
 * how far the copy got, and that re-running completes it (identical records are skipped).
 */
function sideFailed(side: SideName, name: string, url: string, error: unknown, progress: Progress): KeyStoreError {
  let where = '';
  let password: string | undefined;
  try {
    const location = parseStoreUrl(url);
    password = location.kind === 'sqlite' ? undefined : location.password;
    where = location.kind === 'sqlite' ? location.file : addressOf(location);
  } catch {
    // The URL was parsed when the side was opened; nothing more to say.
  }
  const why = whyUnreachable(error, password);
  const after = progress.copying && progress.total !== undefined ? ` after ${progress.done} of ${progress.total} records` : '';
  const rerun = progress.copying ? '; records copied so far are kept: re-run the same command to complete the copy' : '';
  return new KeyStoreError('storage', redactPassword(`the ${side} (${name}, ${where}) failed${after}: ${why}${rerun}`, password), { cause: error });
}

async function withBoth<T>(opts: MigrateKeysOptions, copying: boolean, run: (from: Side, to: Side, progress: Progress) => Promise<T>): Promise<T> {
  const logger = (opts.logger ?? silentLogger()).child({ component: 'key-migration' });
  const namespace = opts.namespace === undefined ? {} : { namespace: opts.namespace };
  const fromName = opts.fromName ?? '--from';
  const toName = opts.toName ?? '--to';
  // Before connecting: two spellings of one store (scheme alias, localhost vs 127.0.0.1, default
  // port, relative vs absolute path) are one store.
  let same = false;
  try {
    same = sameStore(parseStoreUrl(opts.from), parseStoreUrl(opts.to));
  } catch {
    // An unparsable URL is reported by openBackend below, naming its option.
  }
  if (same) throw new KeyStoreError('invalid_input', `${fromName} and ${toName} name the same key store`);
  const progress: Progress = { done: 0, total: undefined, copying };
  const side = (name: SideName, label: string, url: string, backend: KeyBackend): Side => ({
    backend,
    async run(work) {
      try {
        return await work();
      } catch (error) {
        throw sideFailed(name, label, url, error, progress);
      }
    },
  });
  const from = await openBackend({ databaseUrl: opts.from, logger, mustExist: true, variable: fromName, ...namespace });
  try {
    const to = await openBackend({ databaseUrl: opts.to, logger, variable: toName, ...namespace });
    try {
      return await run(side('source', fromName, opts.from, from), side('target', toName, opts.to, to), progress);
    } finally {
      await to.close().catch(() => undefined);
    }
  } finally {
    await from.close().catch(() => undefined);
  }
}

export function migrateKeys(opts: MigrateKeysOptions): Promise<MigrateKeysResult> {
  return withBoth(opts, true, async (from, to, progress) => {
    const entries = await from.run(() => from.backend.listEntries());
    progress.total = entries.length;
    const result: MigrateKeysResult = { total: entries.length, copied: 0, unchanged: 0 };
    for (const [index, entry] of entries.entries()) {
      const existing = await to.run(() => to.backend.readEntry(entry.guildId));
      if (existing?.raw === entry.raw) {
        result.unchanged += 1;
      } else {
        await to.run(() => to.backend.writeRaw(entry.guildId, entry.raw));
        result.copied += 1;
      }
      progress.done = index + 1;
      await opts.onProgress?.(index + 1, entries.length);
    }
    return result;
  });
}

export function verifyKeys(opts: MigrateKeysOptions): Promise<VerifyKeysResult> {
  return withBoth(opts, false, async (from, to) => {
    const source = await from.run(() => from.backend.listEntries());
    const destination = new Map((await to.run(() => to.backend.listEntries())).map((entry) => [entry.guildId, entry.raw]));
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
