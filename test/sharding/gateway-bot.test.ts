/**
 * The session start limit preflight: the line that refuses to start (or roll) shard processes
 * whose identifies Discord's GET /gateway/bot says are not left. End to end against the emulator
 * in test/e2e/sharded-rolling.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { sessionStartRefusal } from '../../src/sharding/gateway-bot.js';

const NOW = Date.parse('2030-01-02T03:04:05.000Z');

describe('sessionStartRefusal', () => {
  it('lets through as many identifies as are left', () => {
    expect(sessionStartRefusal({ sessionStartsRemaining: 1000, resetAfterMs: 0 }, 16, 'start', NOW)).toBeUndefined();
    expect(sessionStartRefusal({ sessionStartsRemaining: 4, resetAfterMs: 10 }, 4, 'roll', NOW)).toBeUndefined();
  });

  it('refuses more, saying how many are needed, how many are left, and when the limit resets', () => {
    expect(sessionStartRefusal({ sessionStartsRemaining: 3, resetAfterMs: 3_600_500 }, 6, 'start', NOW)).toBe(
      "Refusing to start 6 shard processes: they need 6 identifies, but Discord's session start limit (GET /gateway/bot) has 3 left " +
        'until it resets in 3601 s, at 2030-01-02T04:04:05.500Z. An identify past the limit gets no session: try again after the reset.',
    );
    expect(sessionStartRefusal({ sessionStartsRemaining: 0, resetAfterMs: 1_000 }, 1, 'roll', NOW)).toBe(
      "Refusing to roll (restart) 1 shard process: it needs 1 identify, but Discord's session start limit (GET /gateway/bot) has 0 left " +
        'until it resets in 1 s, at 2030-01-02T03:04:06.000Z. An identify past the limit gets no session: try again after the reset.',
    );
  });
});
