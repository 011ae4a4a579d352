/**
 * What the key store needs from a storage backend (SQLite, PostgreSQL, Redis): a Keyv instance for
 * ordinary reads and writes, plus the raw operations Keyv has no API for: list a namespace, read
 * and write a stored envelope byte for byte (migration), compare-and-swap (rotation), and, on
 * shared servers, telling other processes that a guild's record changed (cache invalidation).
 */
import type { Keyv } from 'keyv';
import { KeyStoreError } from './errors.js';

export interface RawEntry {
  guildId: string;
  /** The serialized Keyv envelope exactly as stored (compare-and-swap compares against it). */
  raw: string;
  /** The record inside the envelope, or undefined if the envelope itself is unreadable. */
  record: unknown;
}

/** Called with the guild id whose record another process changed; `reset` when some may have been missed. */
export interface ChangeListener {
  changed(guildId: string): void;
  reset(): void;
}

export interface KeyBackend {
  readonly keyv: Keyv<unknown>;
  readonly namespace: string;
  /** 'sqlite', 'postgres' or 'redis'. */
  readonly kind: string;
  /** Where the records live, for logs: a file path or scheme://host:port/db, never a password. */
  readonly where: string;
  listEntries(): Promise<RawEntry[]>;
  /**
   * The same entries, at most `size` per page, each page read only when the caller asks for it:
   * a caller that only counts (the start-up audit) holds one page instead of the namespace, whose
   * native memory would stay resident after the pass (HTTP-mode RSS per stored key).
   */
  entryPages(size: number): AsyncGenerator<RawEntry[]>;
  readEntry(guildId: string): Promise<RawEntry | undefined>;
  /** Stores an envelope exactly as read from another backend (no re-serialization). */
  writeRaw(guildId: string, raw: string): Promise<void>;
  /** Replaces the record only if the stored envelope is still `expectedRaw`; false if it changed meanwhile. */
  replaceIf(guildId: string, expectedRaw: string, record: unknown): Promise<boolean>;
  /** Tells other processes sharing the backend that this guild's record changed (no-op for a local file). */
  announce(guildId: string): Promise<void>;
  /** Starts delivering other processes' announcements; undefined for backends no other process shares live. */
  watch?(listener: ChangeListener): Promise<void>;
  close(): Promise<void>;
}

const NAMESPACE = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function checkNamespace(namespace: string): string {
  if (!NAMESPACE.test(namespace)) throw new KeyStoreError('invalid_input', 'namespace must be lowercase letters, digits and dashes');
  return namespace;
}

/** The Keyv envelope's record, or undefined when the envelope is unreadable. */
export async function decodeEnvelope(keyv: Keyv<unknown>, raw: string): Promise<unknown> {
  try {
    const envelope = (await keyv.deserialize?.(raw)) as { value?: unknown } | undefined;
    return envelope?.value;
  } catch {
    return undefined;
  }
}

/** Same envelope Keyv.set writes, so Keyv.get reads swapped records like any other. */
/** A row as the SQL backends read it: `key` with the namespace's prefix, `value` the envelope. */
export interface KeyRow {
  key: unknown;
  value: unknown;
}

/** The SQL backends' rows as entries of one namespace; a row that is not two strings is skipped. */
export async function decodeRows(keyv: Keyv<unknown>, prefix: string, rows: readonly KeyRow[]): Promise<RawEntry[]> {
  const entries: RawEntry[] = [];
  for (const row of rows) {
    if (typeof row.key !== 'string' || typeof row.value !== 'string') continue;
    entries.push({ guildId: row.key.slice(prefix.length), raw: row.value, record: await decodeEnvelope(keyv, row.value) });
  }
  return entries;
}

/**
 * Keyset pages: each page is read after the last key of the page before (no OFFSET, which
 * rescans), so memory holds one page whatever the number of records (the start-up audit).
 */
export async function* keysetPages(
  size: number,
  readPage: (after: string | undefined) => Promise<readonly KeyRow[]>,
  decode: (rows: readonly KeyRow[]) => Promise<RawEntry[]>,
): AsyncGenerator<RawEntry[]> {
  let after: string | undefined;
  for (;;) {
    const rows = await readPage(after);
    const last = rows.at(-1)?.key;
    if (typeof last !== 'string') return;
    after = last;
    yield await decode(rows);
    if (rows.length < size) return;
  }
}

export async function encodeEnvelope(keyv: Keyv<unknown>, record: unknown): Promise<string> {
  const serialize = keyv.serialize;
  return serialize ? await serialize({ value: record, expires: undefined }) : JSON.stringify({ value: record });
}

/** The channel (Redis) / payload prefix (PostgreSQL) change announcements travel on. */
export const CHANGES_CHANNEL = 'feedbot_key_changes';

/** `namespace:guildId`, the payload of a change announcement. */
export function changeMessage(namespace: string, guildId: string): string {
  return `${namespace}:${guildId}`;
}

export function parseChangeMessage(namespace: string, message: string): string | undefined {
  const prefix = `${namespace}:`;
  if (!message.startsWith(prefix)) return undefined;
  const guildId = message.slice(prefix.length);
  return /^\d{1,32}$/.test(guildId) ? guildId : undefined;
}
