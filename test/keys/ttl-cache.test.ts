/**
 * Memory per server: the key store's and the settings' TtlCache drops expired entries
 * on the next write instead of holding up to `size` of them until they are read again.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { TtlCache } from '../../src/keys/cache.js';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

it('empties after its lifetime: expired entries go on the next write', () => {
  const cache = new TtlCache<string>(1_000, 60_000, (v) => v);
  for (let i = 0; i < 500; i++) cache.put(`guild-${i}`, 'value');
  expect(cache.held).toBe(500);
  vi.advanceTimersByTime(60_000);
  cache.put('another', 'value');
  expect(cache.held).toBe(1);
  expect(cache.get('guild-0')).toBeUndefined();
  expect(cache.get('another')).toBe('value');
});

it('keeps entries within their lifetime', () => {
  const cache = new TtlCache<string>(1_000, 60_000, (v) => v);
  cache.put('a', '1');
  vi.advanceTimersByTime(59_999);
  cache.put('b', '2');
  expect(cache.held).toBe(2);
  expect(cache.get('a')).toBe('1');
});
