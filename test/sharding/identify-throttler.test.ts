import { describe, expect, it } from 'vitest';
import { IdentifyThrottler } from '../../src/bot/identify-throttler.js';
import type { SlotLease } from '../../src/leases/lease.js';
import { MemoryLease } from '../../src/leases/lease-memory.js';

describe('IdentifyThrottler', () => {
  it('spaces the shards of one bucket and lets other buckets identify at once', async () => {
    const throttler = new IdentifyThrottler(2, 150);
    const at: Record<number, number> = {};
    const started = performance.now();
    const signal = new AbortController().signal;
    await Promise.all([0, 1, 2, 4].map(async (id) => {
      await throttler.waitForIdentify(id, signal);
      at[id] = performance.now() - started;
    }));
    expect(at[0]).toBeLessThan(100);
    expect(at[1]).toBeLessThan(100);
    // Bucket 0 holds shards 0, 2 and 4: one per spacing, in order.
    expect(at[2]! - at[0]!).toBeGreaterThanOrEqual(145);
    expect(at[4]! - at[2]!).toBeGreaterThanOrEqual(145);
  });

  it('an aborted wait rejects and does not hold up the next shard of its bucket', async () => {
    const throttler = new IdentifyThrottler(1, 200);
    const live = new AbortController().signal;
    await throttler.waitForIdentify(0, live);
    const aborted = new AbortController();
    const waiting = throttler.waitForIdentify(1, aborted.signal);
    aborted.abort();
    await expect(waiting).rejects.toThrow(/abort/i);
    const started = performance.now();
    await throttler.waitForIdentify(2, live);
    // Still spaced from shard 0's identify, not from the aborted one.
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('two processes sharing a store take turns: the second identifies a spacing after the first', async () => {
    const shared = new MemoryLease();
    const signal = new AbortController().signal;
    // Two processes, each with its own throttler (nothing in memory in common but the store).
    const [a, b] = [new IdentifyThrottler(1, 300, Date.now, () => Promise.resolve(shared)), new IdentifyThrottler(1, 300, Date.now, () => Promise.resolve(shared))];
    const started = performance.now();
    const at = await Promise.all([a, b].map(async (t) => (await t.waitForIdentify(0, signal), performance.now() - started)));
    const [first, second] = at.sort((x, y) => x - y) as [number, number];
    expect(first).toBeLessThan(200);
    expect(second - first).toBeGreaterThanOrEqual(250);
  });

  it('a store that fails or does not answer leaves the turn to this process alone, after asking for a second', async () => {
    const signal = new AbortController().signal;
    const failing: SlotLease = { kind: 'failing', claim: () => Promise.reject(new Error('down')), close: () => Promise.resolve() };
    const silent: SlotLease = { kind: 'silent', claim: () => new Promise(() => undefined), close: () => Promise.resolve() };
    for (const [lease, boundMs] of [
      [failing, 1_600],
      [silent, 2_600],
    ] as const) {
      const started = performance.now();
      await new IdentifyThrottler(1, 300, Date.now, () => Promise.resolve(lease)).waitForIdentify(0, signal);
      expect(performance.now() - started, lease.kind).toBeLessThan(boundMs);
    }
    // A store still opening after the wait for it: the same.
    const started = performance.now();
    await new IdentifyThrottler(1, 300, Date.now, () => new Promise(() => undefined), 400).waitForIdentify(0, signal);
    expect(performance.now() - started).toBeLessThan(800);
  });

  it('a store that refuses claims while it connects is asked again: the turn is claimed once it answers', async () => {
    const shared = new MemoryLease();
    const signal = new AbortController().signal;
    let calls = 0;
    // Refuses the first two claims (a Redis client still connecting), then answers.
    const connecting: SlotLease = { kind: 'connecting', claim: (name, ttl) => (++calls <= 2 ? Promise.reject(new Error('offline')) : shared.claim(name, ttl)), close: () => Promise.resolve() };
    await new IdentifyThrottler(1, 5_500, Date.now, () => Promise.resolve(connecting)).waitForIdentify(0, signal);
    expect(calls).toBe(3);
    expect(await shared.claim('identify:0', 5_500)).toBe(false);
  });

  it('the first identify waits for a store that opens after a second, and claims its turn there', async () => {
    const shared = new MemoryLease();
    const signal = new AbortController().signal;
    const opening = new Promise<SlotLease>((resolve) => setTimeout(() => resolve(shared), 1_500));
    const started = performance.now();
    await new IdentifyThrottler(1, 5_500, Date.now, () => opening).waitForIdentify(0, signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400);
    // Its turn is held: another process must wait for it.
    expect(await shared.claim('identify:0', 5_500)).toBe(false);
  });
});
