/**
 * The slot lease on a real Redis and a real PostgreSQL (started for this file; skipped with a
 * message when the binaries are absent, never under CI): three "replicas", each with its own
 * connection, claim the same slots at the same time and exactly one gets each; a lease that
 * expired (its replica died) can be taken by another one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { missingServer, startPostgres, startRedis, type LocalServer } from '@feedbot/playground';
import type { SlotLease } from '../../../src/health/sweep/lease.js';
import { RedisLease } from '../../../src/health/sweep/lease-redis.js';
import { PostgresLease } from '../../../src/health/sweep/lease-postgres.js';

const kinds = [
  { kind: 'redis' as const, missing: missingServer('redis'), start: () => startRedis(), open: (url: string) => RedisLease.open(url) },
  { kind: 'postgres' as const, missing: missingServer('postgres'), start: () => startPostgres(), open: (url: string) => PostgresLease.open(url) },
];

const servers: LocalServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

for (const k of kinds) {
  if (k.missing) console.warn(k.missing.replace('key-store', 'lease'));
  describe.skipIf(k.missing !== undefined)(`the slot lease [${k.kind}]`, () => {
    async function replicas(): Promise<SlotLease[]> {
      const server = await k.start();
      servers.push(server);
      const url = await server.newDatabase();
      return Promise.all([0, 1, 2].map(() => k.open(url)));
    }

    it('three replicas claiming the same slots at once: one gets each', { timeout: 60_000 }, async () => {
      const leases = await replicas();
      try {
        const names = Array.from({ length: 50 }, (_, i) => `sweep:11000000000000000${String(i).padStart(2, '0')}:42`);
        // Each slot's three claims race; the slots follow one another (150 queries at once would
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

    it('an expired lease (a replica that died) is taken by another', { timeout: 60_000 }, async () => {
      const [a, b, c] = await replicas();
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
  });
}
