import { describe, expect, it } from 'vitest';
import { IdentifyThrottler } from '../../src/bot/identify-throttler.js';

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
});
