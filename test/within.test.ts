import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { within } from '../src/within.js';

describe('within', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const settlesAfter = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

  it("gives the work's value when it settles first, and leaves no timer behind", async () => {
    const bounded = within(settlesAfter(10, 'done'), 100, () => 'late');
    await vi.advanceTimersByTimeAsync(10);
    await expect(bounded).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the work's rejection on when it comes first", async () => {
    const failing = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('store down')), 10));
    const bounded = within(failing, 100);
    const seen = expect(bounded).rejects.toThrow('store down');
    await vi.advanceTimersByTimeAsync(10);
    await seen;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives onLate's value, or undefined without one, once the bound passes first", async () => {
    const never = new Promise<string>(() => undefined);
    const named = within(never, 50, () => 'timeout');
    const plain = within(never, 50);
    await vi.advanceTimersByTimeAsync(49);
    let settled = false;
    void named.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(named).resolves.toBe('timeout');
    await expect(plain).resolves.toBeUndefined();
  });

  it('rejects with what onLate throws, the same object', async () => {
    const timedOut = new Error('no answer within 50 ms');
    const bounded = within(new Promise<boolean>(() => undefined), 50, () => {
      throw timedOut;
    });
    const seen = bounded.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(50);
    expect(await seen).toBe(timedOut);
  });

  it('a work that fails after the bound passed is handled, never an unhandled rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('too late')), 100));
      await vi.advanceTimersByTimeAsync(0);
      const bounded = within(late, 10);
      await vi.advanceTimersByTimeAsync(10);
      await expect(bounded).resolves.toBeUndefined();
      await vi.advanceTimersByTimeAsync(100);
      // Node reports an unhandled rejection once the microtasks after it have run: a real turn.
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
