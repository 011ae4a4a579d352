/**
 * The key store failing under the bot, one entry per fault: how it is caused on the harness's
 * real SQLite file, what it breaks, and what each family answers. A new fault is one entry.
 *
 * Tests run as root here, where file modes do not stop writes; "read-only" is SQLite's own
 * `PRAGMA query_only` on the store's connection, which fails every write with SQLITE_READONLY
 * exactly as a read-only file or mount would, and is undone as easily.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeyvSqlite } from '@keyv/sqlite';
import { GUILD_ID } from '../helpers/discord.js';
import type { BotHarness } from '../helpers/bot.js';
import type { KeyDatabase } from '../../src/keys/sqlite.js';
import type { MessageKey } from '../../src/i18n/index.js';
import type { Family } from './families.js';
import type { Level } from './support.js';

/** The harness's key database file (see test/helpers/bot.ts). */
const keyFile = (h: BotHarness) => join(h.dir, 'keys.sqlite');

type Query = (sql: string, ...params: unknown[]) => Promise<unknown>;

/** The store's own connection: private to KeyStore, reached here only to make it read-only. */
function storeConnection(h: BotHarness): { query: Query } {
  return (h.keys['db'] as KeyDatabase)['adapter'];
}

/** A second connection to the same file, as another process would hold it. */
async function otherConnection(h: BotHarness): Promise<KeyvSqlite> {
  const other = new KeyvSqlite({ uri: `sqlite://${keyFile(h)}` });
  await other.query('SELECT 1');
  return other;
}

export type KeyStoreExpectation =
  | { kind: 'error'; key: MessageKey; outcome: string; level: Level; ref: boolean }
  /** Answers as if nothing were wrong (the fault cannot reach what the family does). */
  | { kind: 'unaffected'; why: string };

export interface KeyStoreFault {
  id: string;
  label: string;
  /** Breaks the store; resolves with the repair, or undefined when only an operator can repair it. */
  inject(h: BotHarness): Promise<(() => Promise<void>) | undefined>;
  expect(f: Family): KeyStoreExpectation;
  /** What the logged error must show: that the fault was this one. */
  evidence: RegExp;
}

const UNEXPECTED = { kind: 'error', key: 'error.unknown', outcome: 'error', level: 'error', ref: true } as const;
const untouched = (f: Family): KeyStoreExpectation | undefined =>
  !f.readsKey && !f.writesKey ? { kind: 'unaffected', why: 'reads and writes no key' } : undefined;

export const KEY_STORE_FAULTS: KeyStoreFault[] = [
  {
    id: 'locked',
    label: 'locked (another connection holds an exclusive lock past the busy timeout)',
    async inject(h) {
      const other = await otherConnection(h);
      await other.query('BEGIN EXCLUSIVE');
      return async () => {
        await other.query('ROLLBACK');
        await other.disconnect();
      };
    },
    expect: (f) => untouched(f) ?? UNEXPECTED,
    evidence: /SQLITE_BUSY/,
  },
  {
    id: 'read-only',
    label: 'read-only (SQLITE_READONLY on every write)',
    async inject(h) {
      await storeConnection(h).query('PRAGMA query_only = ON');
      return async () => void (await storeConnection(h).query('PRAGMA query_only = OFF'));
    },
    expect: (f) => untouched(f) ?? (f.writesKey ? UNEXPECTED : { kind: 'unaffected', why: 'reads still work' }),
    evidence: /SQLITE_READONLY/,
  },
  {
    id: 'corrupt-file',
    label: 'corrupt file (garbage bytes over the database)',
    async inject(h) {
      writeFileSync(keyFile(h), randomBytes(8192));
      return undefined;
    },
    expect: (f) => untouched(f) ?? UNEXPECTED,
    evidence: /SQLITE_NOTADB|SQLITE_CORRUPT/,
  },
  {
    id: 'corrupt-record',
    label: "corrupt record (this guild's value is garbage)",
    async inject(h) {
      const other = await otherConnection(h);
      await other.query('UPDATE keyv SET value = ? WHERE key LIKE ?', 'garbage \u0000\u00ff not json', `%:${GUILD_ID}`);
      await other.disconnect();
      return undefined;
    },
    expect(f) {
      const u = untouched(f);
      if (u) return u;
      // remove and set read the old key leniently, then replace or delete the bad record.
      if (f.writesKey) return { kind: 'unaffected', why: 'replaces or deletes the unreadable record' };
      return { kind: 'error', key: 'error.keyUnreadable', outcome: 'key_unreadable', level: 'error', ref: true };
    },
    evidence: /cannot be used: the stored record is not a valid key record/,
  },
];
