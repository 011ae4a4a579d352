/**
 * HTTP-mode memory against the number of stored keys, which it should not follow: RSS of a fresh process that
 * opens a KeyStore (whose start-up audit reads the records) on a SQLite file holding `--records`
 * sealed keys. Seeds the file in one transaction, then runs `--runs` child processes, each
 * printing its RSS before and after KeyStore.open (after a GC each time). With `--before <dir>`
 * (an extracted `git archive` of another commit, node_modules linked) its KeyStore is measured in
 * alternation with this checkout's.
 *   npx tsx --conditions=@feedbot/source bench/lib/key-store-audit-memory.ts --records 10000 [--before /tmp/before]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Keyv } from 'keyv';
import { KeyvSqlite } from '@keyv/sqlite';
import { sealKeyRecord } from '../../src/keys/crypto.js';
import { encodeEnvelope } from '../../src/keys/backend.js';
import type { KeyStore as KeyStoreOfThisCheckout } from '../../src/keys/store.js';

const SECRET = Buffer.alloc(32, 0x5b);
const NAMESPACE = 'guild-keys';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '5' },
    before: { type: 'string' },
    child: { type: 'string' },
    file: { type: 'string' },
    /** The audit's page size (KeyStoreOptions.auditPageSize; a checkout without it ignores it). */
    page: { type: 'string' },
  },
});

const gc = (globalThis as { gc?: () => void }).gc;
const rssMb = () => {
  gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
};

if (values.child !== undefined) {
  const root = values.child === '' ? join(fileURLToPath(import.meta.url), '../../..') : values.child;
  const { KeyStore } = (await import(pathToFileURL(join(root, 'src/keys/store.ts')).href)) as { KeyStore: typeof KeyStoreOfThisCheckout };
  // Every module the open needs, loaded before the first figure: an empty store first.
  const scratch = mkdtempSync(join(tmpdir(), 'feedbot-audit-mem-'));
  await (await KeyStore.open({ databaseUrl: join(scratch, 'empty.sqlite'), secret: SECRET })).close();
  rmSync(scratch, { recursive: true, force: true });
  const before = rssMb();
  const store = await KeyStore.open({ databaseUrl: values.file!, secret: SECRET, ...(values.page ? { auditPageSize: Number(values.page) } : {}) });
  const opened = rssMb();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const settled = rssMb();
  await store.close();
  console.log(JSON.stringify({ before, opened, settled }));
  process.exit(0);
}

const count = Number(values.records);
const dir = mkdtempSync(join(tmpdir(), 'feedbot-audit-mem-'));
const file = join(dir, 'keys.sqlite');
try {
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}` });
  const keyv = new Keyv<unknown>({ store: adapter, namespace: NAMESPACE });
  await adapter.query('PRAGMA synchronous = OFF');
  await adapter.query('BEGIN');
  for (let i = 0; i < count; i++) {
    const guildId = String(1100000000000100000n + BigInt(i));
    const record = sealKeyRecord(
      { apiKey: `fbk_${String(i).padStart(8, '0')}BenchKeyStoreKeyMaterial0000000`, setBy: '1400000000000000001', setAt: '2026-11-01T10:00:00.000Z', scopes: ['feeds:read'], scopesKnown: true },
      guildId,
      SECRET,
      { namespace: NAMESPACE },
    );
    await adapter.query(`INSERT INTO keyv (key, value) VALUES (?, ?)`, `${NAMESPACE}:${guildId}`, await encodeEnvelope(keyv, record));
  }
  await adapter.query('COMMIT');
  await keyv.disconnect();

  const sides: Array<[string, string]> = [['after', '']];
  if (values.before) sides.push(['before', values.before]);
  const deltas: Record<string, number[]> = {};
  for (let run = 0; run < Number(values.runs); run++) {
    for (const [name, root] of run % 2 === 0 ? sides : [...sides].reverse()) {
      const out = execFileSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', '--conditions=@feedbot/source', fileURLToPath(import.meta.url), '--child', root, '--file', file, ...(values.page ? ['--page', values.page] : [])],
        { encoding: 'utf8' },
      );
      const m = JSON.parse(out.trim().split('\n').pop()!) as { before: number; opened: number; settled: number };
      (deltas[name] ??= []).push(m.settled - m.before);
      console.log(`${name} run ${run + 1}: RSS ${m.before.toFixed(1)} MB -> ${m.opened.toFixed(1)} MB after open, ${m.settled.toFixed(1)} MB settled`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, xs] of Object.entries(deltas)) {
    console.log(`${name}: median RSS growth from opening ${count} records ${median(xs).toFixed(2)} MB (${((median(xs) * 1024) / count).toFixed(3)} KB per record)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
