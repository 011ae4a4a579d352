/**
 * Scenario 6 — key store. 10,000 guilds' keys written and then read through the encrypted
 * KeyStore (AES-256-GCM records, zod validation, SQLite with synchronous=FULL), against plain
 * Keyv on @keyv/sqlite storing the same objects unencrypted in another namespace of the same
 * file. Operations alternate between the two (one at a time, each awaited), so the disk, the
 * file and the process state are the same for both. Reads use a KeyStore with its in-memory
 * cache off: every read goes to SQLite and decrypts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { KeyStore, type StoredKey } from '../../src/keys/store.js';
import { BENCH_SECRET, storedKey } from '../lib/bot.js';
import { seeded } from '../lib/random.js';
import type { ScenarioResult } from '../lib/report.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

function guildIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => String(1100000000000100000n + BigInt(i)));
}

function apiKeyFor(i: number): string {
  return `fbk_${String(i).padStart(8, '0')}BenchKeyStoreKeyMaterial0000000`;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seeded(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const count = ctx.quick ? 500 : 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-keys-'));
  const file = join(dir, 'keys.sqlite');
  const store = await KeyStore.open({ databaseUrl: file, secret: BENCH_SECRET, cacheSize: 0 });
  const plainAdapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5_000 });
  const plain = new Keyv<StoredKey>({ store: plainAdapter, namespace: 'plain-baseline', throwOnErrors: true });

  try {
    const ids = guildIds(count);
    const time = async (op: () => Promise<unknown>): Promise<number> => {
      const t0 = performance.now();
      await op();
      return performance.now() - t0;
    };

    ctx.log(`  set: ${count} guilds each, alternating`);
    const encSet: number[] = [];
    const plainSet: number[] = [];
    for (const [i, id] of ids.entries()) {
      const value = storedKey(apiKeyFor(i));
      if (i % 2 === 0) {
        encSet.push(await time(() => store.set(id, value)));
        plainSet.push(await time(() => plain.set(id, value)));
      } else {
        plainSet.push(await time(() => plain.set(id, value)));
        encSet.push(await time(() => store.set(id, value)));
      }
    }

    ctx.log(`  get: ${count} guilds each in random order, alternating`);
    const encGet: number[] = [];
    const plainGet: number[] = [];
    let wrong = 0;
    for (const [n, i] of shuffled([...ids.keys()], 6).entries()) {
      const id = ids[i]!;
      let got: StoredKey | undefined;
      let gotPlain: StoredKey | undefined;
      const enc = async () => {
        got = await store.get(id);
      };
      const pl = async () => {
        gotPlain = await plain.get(id);
      };
      if (n % 2 === 0) {
        encGet.push(await time(enc));
        plainGet.push(await time(pl));
      } else {
        plainGet.push(await time(pl));
        encGet.push(await time(enc));
      }
      if (got?.apiKey !== apiKeyFor(i) || gotPlain?.apiKey !== apiKeyFor(i)) wrong++;
    }
    if (wrong > 0) throw new Error(`${wrong} reads returned the wrong key`);

    const rate = (ms: number[]) => round(ms.length / (ms.reduce((a, b) => a + b, 0) / 1000));
    const es = summarize(encSet);
    const ps = summarize(plainSet);
    const eg = summarize(encGet);
    const pg = summarize(plainGet);
    const [esr, psr, egr, pgr] = [rate(encSet), rate(plainSet), rate(encGet), rate(plainGet)];
    return {
      id: 6,
      key: 'key-store',
      title: 'Key store',
      baseline: 'plain Keyv + @keyv/sqlite, unencrypted, same file (another namespace), same process',
      params: { guilds: count, file: 'SQLite, rollback journal, synchronous=FULL (fsync per write)', keyStoreCache: 'off for reads' },
      metrics: [
        { name: 'set per second', unit: '/s', value: esr, baseline: psr, ratio: ratio(esr, psr) },
        { name: 'set p99', unit: 'ms', value: round(es.p99), baseline: round(ps.p99), ratio: ratio(es.p99, ps.p99) },
        { name: 'get per second', unit: '/s', value: egr, baseline: pgr, ratio: ratio(egr, pgr) },
        { name: 'get p99', unit: 'ms', value: round(eg.p99), baseline: round(pg.p99), ratio: ratio(eg.p99, pg.p99) },
      ],
      details: { set: { encrypted: roundSummary(es), plain: roundSummary(ps) }, get: { encrypted: roundSummary(eg), plain: roundSummary(pg) } },
      notes: [
        'Writes are bound by fsync: each set is one autocommit transaction on a file opened with synchronous=FULL, for both sides.',
        'In production the bot reads a key on every command through a 500-entry in-memory LRU (5-minute TTL); a hit costs microseconds. This scenario measures the miss path.',
      ],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await store.close();
    await plain.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}
