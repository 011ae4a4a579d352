/**
 * The rate gate's tests, once per implementation: `describeGates('…', (b) => …)` runs the body
 * against the in-memory gate and against the Redis one (a real server, shared-redis.ts). The
 * body makes gates with `b.make(clock.now)` and, where it needs the gate's work to be done (promise
 * reactions for the in-memory gate), calls `b.settle()`, which for Redis also waits until no
 * script is out.
 */
import { afterAll, beforeAll } from 'vitest';
import type { RateGate } from '../../src/api/gate.js';
import { MemoryRateGate } from '../../src/api/rate-gate.js';
import type { RedisLink } from '../../src/replicas/redis-link.js';
import { RedisRateGate } from '../../src/replicas/redis-rate-gate.js';
import { turn } from './rate-limit-scenarios.js';
import { RedisServerFixture, STATE_KINDS, describeStates, type StateKind } from './shared-redis.js';

/** The most `settle()` waits for Redis to answer the scripts out (a loaded machine, not a slow gate). */
const SETTLE_MS = 10_000;

export interface MakeGateOptions {
  /** Redis: how long an unanswered reservation holds its unit. Default an hour: answers take the time a test gives them. */
  reservationTtlMs?: number;
  /** Redis: another replica's connection (default: the file's first one). */
  link?: RedisLink;
  /** Redis: a key space to share with another gate (default: a fresh one). */
  namespace?: string;
}

export interface GateBackend {
  kind: StateKind;
  make(now: () => number, opts?: MakeGateOptions): RateGate;
  /** Returns once promise reactions have run and no gate made here has a script out. */
  settle(): Promise<void>;
  /** Redis only: the file's server, for more connections and namespaces. */
  redis: RedisServerFixture;
}

export function describeGates(title: string, body: (b: GateBackend) => void, kinds: StateKind[] = STATE_KINDS): void {
  describeStates(
    title,
    (kind) => {
      const redis = new RedisServerFixture();
      const gates: RedisRateGate[] = [];
      let link: RedisLink | undefined;
      beforeAll(async () => {
        if (kind === 'redis') link = await redis.link();
      });
      afterAll(() => redis.stop());
      const idle = () => gates.every((g) => g.busy === 0);
      body({
        kind,
        redis,
        make(now, opts = {}) {
          if (kind === 'memory') return new MemoryRateGate({ now });
          const gate = new RedisRateGate({
            link: opts.link ?? link!,
            now,
            reservationTtlMs: opts.reservationTtlMs ?? 3_600_000,
            namespace: opts.namespace ?? redis.namespace(),
          });
          gates.push(gate);
          return gate;
        },
        async settle() {
          // Bounded in time, not in turns: 100,000 setImmediate turns are about 0.1 s here, and a
          // script out at a Redis that a loaded two-core machine had not scheduled for that long
          // failed the property ('the gates never settled': two Vitest workers beside other load).
          // Past the first turns it waits with a timer: a setImmediate spin kept a core busy that
          // redis-server needed to answer.
          const deadline = Date.now() + SETTLE_MS;
          for (let i = 0; ; i++) {
            await turn();
            if (idle()) {
              await turn();
              if (idle()) return;
            }
            if (Date.now() > deadline) {
              const out = gates.reduce((n, g) => n + g.busy, 0);
              throw new Error(`the gates never settled: ${out} script(s) still out at Redis after ${SETTLE_MS} ms`);
            }
            if (i >= 100) await new Promise((resolve) => setTimeout(resolve, 1));
          }
        },
      });
    },
    kinds,
  );
}
