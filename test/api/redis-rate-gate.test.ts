/**
 * What only a shared gate does: several replicas (one connection each) on one real Redis share a
 * key's budget, its 429s and its first answer; a replica that dies mid-request frees its units;
 * and a Redis that stops answering leaves each replica gating on its own, logged once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GateDecision, GatePermit, RateGate } from '../../src/api/gate.js';
import { lua, RedisLink } from '../../src/replicas/redis-link.js';
import { RedisRateGate } from '../../src/replicas/redis-rate-gate.js';
import { captureLogger, Clock, rateHeaders } from './helpers.js';
import { RedisServerFixture, redisMissing } from './shared-redis.js';
import { SimulatedServer } from './simulated-rate-limit-servers.js';

const KEY = 'key-hash';
const PTTL = lua(`return redis.call('PTTL', KEYS[1])`);

describe.skipIf(redisMissing !== undefined)('rate gate shared through Redis', () => {
  const redis = new RedisServerFixture();
  afterAll(() => redis.stop());

  /** `n` replicas of the bot, each with its own connection, on one key space. */
  async function replicas(n: number, clock: Clock, reservationTtlMs = 60_000): Promise<{ gates: RedisRateGate[]; links: RedisLink[]; namespace: string }> {
    const namespace = redis.namespace();
    const links = await Promise.all(Array.from({ length: n }, () => redis.link()));
    const gates = links.map((link) => new RedisRateGate({ link, now: clock.now, reservationTtlMs, namespace, pollMs: 5 }));
    return { gates, links, namespace };
  }

  async function permit(gate: RateGate): Promise<GatePermit> {
    const d = await gate.acquire(KEY);
    if (!d.ok) throw new Error('refused');
    return d.permit;
  }

  it('300 commands over 3 replicas with 100 left in the window: exactly 100 go out, the rest are refused with the reset', async () => {
    const clock = new Clock();
    const { gates } = await replicas(3, clock);
    const server = new SimulatedServer({ kind: 'fixed', aligned: false, resetOn200: 'full', resetOn429: 'full', skewMs: 0 }, clock.now);
    // The first command teaches the budget; the other 299 arrive together, spread over the replicas.
    const first = server.receive();
    await (await permit(gates[0]!)).release(first.headers, first.status);
    const decisions = await Promise.all(Array.from({ length: 299 }, (_, i) => gates[i % 3]!.acquire(KEY)));
    const permits = decisions.filter((d): d is Extract<GateDecision, { ok: true }> => d.ok);
    expect(permits).toHaveLength(99);
    expect(new Set(decisions.filter((d) => !d.ok).map((d) => (d.ok ? 0 : d.resetAt.getTime())))).toEqual(new Set([first.resetMs]));
    for (const p of permits) {
      const reply = server.receive();
      await p.permit.release(reply.headers, reply.status);
    }
    expect(server.received.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(server.received).toHaveLength(100);
    expect(await gates[2]!.acquire(KEY)).toEqual({ ok: false, resetAt: new Date(first.resetMs) });
  });

  it('cold start on 3 replicas: the first-use burst is shared, and the replicas never send more than the budget nor meet a 429', async () => {
    const clock = new Clock();
    const { gates } = await replicas(3, clock);
    const server = new SimulatedServer({ kind: 'fixed', aligned: false, resetOn200: 'full', resetOn429: 'full', skewMs: 0 }, clock.now);
    let concurrent = 0;
    let mostConcurrent = 0;
    const command = async (gate: RateGate) => {
      const d = await gate.acquire(KEY);
      if (!d.ok) return d;
      const reply = server.receive();
      mostConcurrent = Math.max(mostConcurrent, ++concurrent);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      concurrent--;
      await d.permit.release(reply.headers, reply.status);
      return d;
    };
    // Before the first answer only FIRST_USE_BURST (4) requests may be out, whichever replicas sent them.
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => command(gates[i % 3]!)));
    expect(server.received.every((r) => r.status === 200)).toBe(true);
    expect(server.received.length).toBeLessThanOrEqual(100);
    expect(decisions.filter((d) => d.ok)).toHaveLength(server.received.length);
    expect(mostConcurrent).toBeGreaterThan(1);
  });

  it('a 429 one replica received refuses on the others until its reset', async () => {
    const clock = new Clock();
    const { gates } = await replicas(2, clock);
    await (await permit(gates[0]!)).release(rateHeaders(0, clock.resetIn(20)), 429);
    const resetAt = new Date(Math.floor(clock.ms / 1000 + 20) * 1000);
    expect(await gates[1]!.acquire(KEY)).toEqual({ ok: false, resetAt });
    expect(await gates[1]!.snapshot(KEY)).toEqual({ remaining: 0, resetAt });
    clock.ms = resetAt.getTime();
    expect((await gates[1]!.acquire(KEY)).ok).toBe(true);
  });

  it("a key's first answer, landing on one replica, admits the requests waiting on another", async () => {
    const clock = new Clock();
    const { gates } = await replicas(2, clock);
    const firsts = await Promise.all([1, 2, 3, 4].map(() => permit(gates[0]!)));
    const waiting = Promise.all([gates[1]!.acquire(KEY), gates[1]!.acquire(KEY)]);
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(settled).toBe(false);
    await firsts[0]!.release(rateHeaders(50, clock.resetIn(60)));
    expect((await waiting).map((d) => d.ok)).toEqual([true, true]);
  });

  it('the units of a replica that died mid-request free themselves after the reservation time-out', async () => {
    const clock = new Clock();
    const { gates, links } = await replicas(2, clock, 5_000);
    for (let i = 0; i < 4; i++) await permit(gates[0]!); // the first-use burst, never answered
    await links[0]!.close(); // the replica is gone
    let decision: GateDecision | undefined;
    void gates[1]!.acquire(KEY).then((d) => (decision = d));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(decision).toBeUndefined(); // still waiting for the first answer
    clock.advance(5_000);
    await expect.poll(() => decision?.ok, { interval: 5, timeout: 2_000 }).toBe(true);
  });

  it("a key's state expires on its own: at the latest of its window's end, its refusal's end and its reservations, plus a margin", async () => {
    const clock = new Clock();
    const { gates, links, namespace } = await replicas(1, clock, 5_000);
    const ttl = () => links[0]!.run(PTTL, [`${namespace}:gate:{${KEY}}`], []) as Promise<number>;
    const held = await permit(gates[0]!);
    expect(await ttl()).toBeGreaterThan(60_000 + 4_000); // the reservation's 5 s, plus the minute of margin
    await held.release(rateHeaders(10, clock.resetIn(30)));
    expect(await ttl()).toBeGreaterThan(60_000 + 29_000);
    expect(await ttl()).toBeLessThanOrEqual(60_000 + 30_000);
    await (await permit(gates[0]!)).release(rateHeaders(0, clock.resetIn(120)), 429);
    expect(await ttl()).toBeGreaterThan(60_000 + 119_000);
    await gates[0]!.forget(KEY);
    expect(await ttl()).toBeGreaterThan(60_000 + 119_000); // the refusal outlives forget
  });

  it('when Redis stops answering, each replica gates on its own (a 429 still holds), logged once without the password', async () => {
    const clock = new Clock();
    const server = await redis.startServer();
    const { logger, lines } = captureLogger();
    const link = await RedisLink.open(`${server.url}/0`, logger);
    try {
      const gate = new RedisRateGate({ link, now: clock.now, reservationTtlMs: 5_000, namespace: redis.namespace() });
      const inFlight = await permit(gate);
      await server.stop();
      // Its answer was a 429: Redis cannot hear it, this replica still does.
      expect(await inFlight.release(rateHeaders(0, clock.resetIn(30)), 429)).toMatchObject({ remaining: 0 });
      const resetAt = new Date(Math.floor(clock.ms / 1000 + 30) * 1000);
      expect(await gate.acquire(KEY)).toEqual({ ok: false, resetAt });
      // Another key: admitted by the local gate, as one replica would be.
      const other = await gate.acquire('other-key');
      expect(other.ok).toBe(true);
      if (other.ok) await other.permit.release(rateHeaders(5, clock.resetIn(60)));
      expect((await gate.snapshot('other-key')).remaining).toBe(5);
      const outages = lines.filter((l) => l.includes('Redis does not answer'));
      expect(outages).toHaveLength(1);
      expect(lines.join('\n')).not.toContain('redis-secret-pw');
    } finally {
      await link.close();
    }
  });
});
