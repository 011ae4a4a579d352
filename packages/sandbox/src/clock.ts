/**
 * Time and randomness the sandbox depends on, injectable so tests are deterministic: the rate
 * limiter, timestamps, stats windows and the simulator all read `clock.now()`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** A seeded pseudo-random source in [0, 1) (mulberry32): same seed, same sequence. */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomInt(random: Random, minInclusive: number, maxInclusive: number): number {
  return minInclusive + Math.floor(random() * (maxInclusive - minInclusive + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

const DAY_MS = 86_400_000;

/** 00:00 UTC of the day containing `ms`. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Monday 00:00 UTC of the ISO week containing `ms`. */
export function startOfUtcIsoWeek(ms: number): number {
  const day = startOfUtcDay(ms);
  const weekday = new Date(day).getUTCDay(); // 0 = Sunday
  const sinceMonday = (weekday + 6) % 7;
  return day - sinceMonday * DAY_MS;
}
