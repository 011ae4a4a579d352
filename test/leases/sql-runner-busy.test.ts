import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { busyRetried } from '../../src/leases/sql-runner.js';

/** An error as node-sqlite3 reports it. */
const sqliteError = (code: string) => Object.assign(new Error(`${code}: database is locked`), { code });

describe('a statement SQLite refused at once with SQLITE_BUSY', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is asked again until it goes through (two connections setting up one new file together)', async () => {
    let calls = 0;
    const run = vi.fn(async () => {
      calls++;
      if (calls < 4) throw sqliteError('SQLITE_BUSY');
      return [{ ok: 1 }];
    });
    const result = busyRetried(run);
    await vi.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toEqual([{ ok: 1 }]);
    expect(run).toHaveBeenCalledTimes(4);
  });

  it('any other error is thrown at once, never asked again', async () => {
    const run = vi.fn(async () => {
      throw sqliteError('SQLITE_CONSTRAINT');
    });
    await expect(busyRetried(run)).rejects.toThrow('SQLITE_CONSTRAINT');
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('gives up with the last SQLITE_BUSY once the 5 s bound is spent', async () => {
    const run = vi.fn(async () => {
      throw sqliteError('SQLITE_BUSY');
    });
    const outcome = busyRetried(run).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(6_000);
    const error = (await outcome) as { code?: string };
    expect(error.code).toBe('SQLITE_BUSY');
    // 5 ms doubling to 100 ms, then every 100 ms: about 50 attempts in 5 s, not an endless loop.
    expect(run.mock.calls.length).toBeGreaterThan(40);
    expect(run.mock.calls.length).toBeLessThan(60);
  });
});
