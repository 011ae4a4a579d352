/**
 * A/B of the key store against the raw adapter: the KeyStore of another checkout
 * (`--before <dir>`, e.g. an extracted `git archive HEAD~1`) and this checkout's, each against
 * the raw Keyv adapter, in one process, operations one at a time among the sides, in every order in turn so machine
 * load and what one side leaves in flight land on all of them. Three rounds; prints each round's ratios of median operation times and their median.
 *   npx tsx --conditions=@feedbot/source bench/lib/key-store-ab.ts --before /tmp/before [--guilds 2000] [--backends postgres,redis]
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Keyv } from 'keyv';
import { KeyStore, type StoredKey } from '../../src/keys/store.js';
import { prepareBackend, type BackendKind } from './key-store-backends.js';

// As bench/lib/bot.ts has them, without loading the bot's wiring.
const BENCH_SECRET = Buffer.alloc(32, 0x5b);
const storedKey = (apiKey: string): StoredKey => ({
  apiKey,
  setBy: '1400000000000000001',
  setAt: '2026-11-01T10:00:00.000Z',
  scopes: ['feeds:read', 'feeds:write', 'stats:read'],
  scopesKnown: true,
});

const { values } = parseArgs({
  options: { before: { type: 'string' }, guilds: { type: 'string', default: '2000' }, backends: { type: 'string', default: 'sqlite,postgres,redis' }, rounds: { type: 'string', default: '3' } },
});
type Store = Pick<KeyStore, 'get' | 'set' | 'close'>;
type Opener = { open(opts: { databaseUrl: string; secret: Buffer; cacheSize: number; namespace?: string }): Promise<Store> };
const Before: Opener | undefined = values.before
  ? ((await import(pathToFileURL(join(values.before, 'src/keys/store.ts')).href)) as { KeyStore: Opener }).KeyStore
  : undefined;
const count = Number(values.guilds);
const ids = Array.from({ length: count }, (_, i) => String(1100000000000100000n + BigInt(i)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}

async function timed(op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await op();
  return performance.now() - t0;
}

for (const kind of values.backends.split(',') as BackendKind[]) {
  const prepared = await prepareBackend(kind);
  if (!prepared.ok) {
    console.log(`${kind}: skipped (${prepared.skipped})`);
    continue;
  }
  const { backend } = prepared;
  const plain: Keyv<StoredKey> = backend.baseline;
  const after = await KeyStore.open({ databaseUrl: backend.databaseUrl, secret: BENCH_SECRET, cacheSize: 0 });
  const before = Before ? await Before.open({ databaseUrl: backend.databaseUrl, secret: BENCH_SECRET, cacheSize: 0, namespace: 'before-keys' }) : undefined;
  const sides: Array<[string, (id: string, v: StoredKey) => Promise<unknown>, (id: string) => Promise<unknown>]> = [
    ['raw', (id, v) => plain.set(id, v), (id) => plain.get(id)],
    ['after', (id, v) => after.set(id, v), (id) => after.get(id)],
  ];
  if (before) sides.push(['before', (id, v) => before.set(id, v), (id) => before.get(id)]);
  for (const [, , get] of sides) await get('1');
  // Every order of the sides in turn: a store's set leaves its change announcement in flight,
  // which slows whichever operation comes next, so each side must follow each other side equally
  // often (rotating three sides made raw follow 'before' twice as often as 'after' did).
  const orders = permutations(sides);
  const ratios: Record<string, number[]> = {};
  for (let round = 0; round < Number(values.rounds); round++) {
    // Per-operation times; a side's rate is 1 ÷ its median time (a loaded machine's stalls land
    // in the tail, where a sum would let a few of them decide the ratio).
    const total: Record<string, { set: number[]; get: number[] }> = Object.fromEntries(sides.map(([n]) => [n, { set: [], get: [] }]));
    for (const [i, id] of ids.entries()) {
      // A new value each round: SQLite rewriting a row with the bytes it already holds skipped the
      // fsync (raw set 0.1 ms against 1 ms), while the store's fresh IV always changes the row.
      const value = storedKey(`fbk_${String(i).padStart(8, '0')}BenchKeyStoreKeyMaterial${String(round).padStart(7, '0')}`);
      for (const [name, set] of orders[i % orders.length]!) {
        total[name]!.set.push(await timed(() => set(id, value)));
      }
    }
    for (const [i, id] of ids.entries()) {
      for (const [name, , get] of orders[i % orders.length]!) {
        total[name]!.get.push(await timed(() => get(id)));
      }
    }
    const line = [`${kind} round ${round + 1}:`];
    for (const [name] of sides) {
      if (name === 'raw') continue;
      for (const op of ['set', 'get'] as const) {
        const r = median(total.raw![op]) / median(total[name]![op]);
        (ratios[`${name} ${op}`] ??= []).push(r);
        line.push(`${name} ${op} ${r.toFixed(3)}×`);
      }
    }
    line.push(`(raw median: set ${median(total.raw!.set).toFixed(3)} ms, get ${median(total.raw!.get).toFixed(3)} ms)`);
    console.log(line.join(' '));
  }
  console.log(`${kind} median of ${values.rounds}: ${Object.entries(ratios).map(([k, v]) => `${k} ${median(v).toFixed(3)}×`).join(', ')}`);
  await after.close();
  await before?.close();
  await backend.close();
}
