/**
 * The lease on each store the processes share: the SQLite file (two connections, as two
 * processes on one host), a real Redis and a real PostgreSQL (started for this file; skipped with a
 * message when the binaries are absent, never under CI). Three "processes", each with its own
 * connection, claim the same names at the same time and exactly one gets each; a lease that
 * expired (its process died) can be taken by another one. A Redis that is down does not hold up
 * the opening (a replica must start and listen without it), and a claim then rejects at once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingServer, startPostgres, startRedis, type LocalServer } from '@feedbot/playground';
import { firstToAct, openLease, type SlotLease } from '../../src/leases/lease.js';
import { RedisLease } from '../../src/leases/lease-redis.js';
import { PostgresLease } from '../../src/leases/lease-postgres.js';
import { SqliteLease } from '../../src/leases/lease-sqlite.js';
import { KeyStore } from '../../src/keys/store.js';
import { silentLogger } from '../../src/logger.js';

const dirs: string[] = [];
/** A folder of SQLite files as a "server"; it has nothing to take down. */
function sqliteServer(): Promise<LocalServer> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-lease-'));
  dirs.push(dir);
  let n = 0;
  return Promise.resolve({ url: dir, newDatabase: () => Promise.resolve(join(dir, `bot-${++n}.sqlite`)), stop: () => Promise.resolve(), down: () => Promise.resolve(), up: () => Promise.resolve() });
}

const kinds = [
  { kind: 'sqlite' as const, missing: undefined, start: sqliteServer, open: (url: string) => SqliteLease.open(url) },
  { kind: 'redis' as const, missing: missingServer('redis'), start: () => startRedis(), open: (url: string) => RedisLease.open(url, { waitForConnection: true }) },
  { kind: 'postgres' as const, missing: missingServer('postgres'), start: () => startPostgres(), open: (url: string) => PostgresLease.open(url) },
];

/** Waits, bounded, until the lease answers claims (Redis connects in the background). */
async function answering(lease: SlotLease): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; ; i++) {
    try {
      await lease.claim(`probe:${i}`, 1_000);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const servers: LocalServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

for (const k of kinds) {
  if (k.missing) console.warn(k.missing.replace('key-store', 'lease'));
  describe.skipIf(k.missing !== undefined)(`the lease [${k.kind}]`, () => {
    async function replicas(): Promise<{ url: string; leases: SlotLease[] }> {
      const server = await k.start();
      servers.push(server);
      const url = await server.newDatabase();
      return { url, leases: await Promise.all([0, 1, 2].map(() => k.open(url))) };
    }

    it('three processes claiming the same names at once: one gets each', { timeout: 60_000 }, async () => {
      const { leases } = await replicas();
      try {
        const names = Array.from({ length: 50 }, (_, i) => `interaction:13000000000000000${String(i).padStart(2, '0')}`);
        // Each name's three claims race; the names follow one another (150 queries at once would
        // only measure the pool's 5 s connection time-out on a loaded machine).
        const won: number[] = [];
        for (const name of names) won.push((await Promise.all(leases.map((l) => l.claim(name, 60_000)))).filter(Boolean).length);
        expect(won).toEqual(names.map(() => 1));
        // The next slot is a new name: claimable again.
        expect((await Promise.all(leases.map((l) => l.claim('sweep:1:43', 60_000)))).filter(Boolean)).toHaveLength(1);
      } finally {
        for (const l of leases) await l.close();
      }
    });

    it('an expired lease (a process that died) is taken by another', { timeout: 60_000 }, async () => {
      const {
        leases: [a, b, c],
      } = await replicas();
      try {
        // Long enough that b's claim right after cannot outlive it on a loaded machine.
        expect(await a!.claim('digest:1:2026-W48', 2_000)).toBe(true);
        expect(await b!.claim('digest:1:2026-W48', 2_000)).toBe(false);
        const deadline = Date.now() + 20_000;
        let taken = false;
        while (!taken && Date.now() < deadline) {
          taken = await c!.claim('digest:1:2026-W48', 60_000);
          if (!taken) await new Promise((r) => setTimeout(r, 20));
        }
        expect(taken).toBe(true);
      } finally {
        for (const l of [a, b, c]) await l?.close();
      }
    });

    it('openLease picks this store from DATABASE_URL, beside the keys it holds', { timeout: 60_000 }, async () => {
      const server = await k.start();
      servers.push(server);
      const url = await server.newDatabase();
      const keys = await KeyStore.open({ databaseUrl: url, secret: Buffer.alloc(32, 3), logger: silentLogger() });
      const [one, two] = [await openLease({ databaseUrl: url }), await openLease({ databaseUrl: url })];
      try {
        expect(one.kind).toBe(k.kind);
        await keys.set('1100000000000000001', { apiKey: 'fbk_LeaseNeighbourKey_0001', setBy: '1', setAt: '2026-11-29T00:00:00.000Z', scopes: [] });
        // Redis connects in the background: a claim may come before it is ready.
        for (const lease of [one, two]) await answering(lease);
        const first = await one.claim('channel-deleted:42', 60_000);
        expect(first).toBe(true);
        await expect(firstToAct(two, 'channel-deleted:42', 60_000)).resolves.toBe(false);
        expect((await keys.get('1100000000000000001'))?.apiKey).toBe('fbk_LeaseNeighbourKey_0001');
      } finally {
        await one.close();
        await two.close();
        await keys.close();
      }
    });
  });
}

describe('the SQLite coordination file', () => {
  it('sits beside the key store, out of its fsync, and a file that is not a database any more is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feedbot-lease-'));
    dirs.push(dir);
    const url = join(dir, 'feedbot.sqlite');
    writeFileSync(`${url}-coordination`, 'not a database, as after a power cut '.repeat(200));
    const lease = await openLease({ databaseUrl: url });
    try {
      expect(await lease.claim('interaction:1', 60_000)).toBe(true);
      expect(await lease.claim('interaction:1', 60_000)).toBe(false);
      expect(readFileSync(`${url}-coordination`).subarray(0, 15).toString()).toBe('SQLite format 3');
    } finally {
      await lease.close();
    }
  });
});

describe('a lease whose store is down', () => {
  async function closedPort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }

  it('Redis down: opening does not wait for it, a claim rejects at once, firstToAct lets the work go on', async () => {
    // The driver's first import is not what is measured.
    await import('../../src/leases/lease-redis.js');
    const started = Date.now();
    // Opening must not await a connection retried without end: the replica would never listen.
    const lease = await openLease({ databaseUrl: ':memory:', redisUrl: `redis://127.0.0.1:${await closedPort()}/0` });
    try {
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(lease.kind).toBe('redis');
      const asked = Date.now();
      await expect(lease.claim('interaction:1', 60_000)).rejects.toThrow();
      expect(Date.now() - asked).toBeLessThan(1_000);
      await expect(firstToAct(lease, 'channel-deleted:1', 60_000)).resolves.toBe(true);
    } finally {
      const closing = Date.now();
      await lease.close();
      expect(Date.now() - closing).toBeLessThan(1_000);
    }
  });
});
