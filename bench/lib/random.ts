// The sandbox's seeded PRNG (mulberry32), so every run replays the same arrival schedule.
export { seededRandom as seeded } from '@feedbot/sandbox';

export function between(random: () => number, min: number, max: number): number {
  return min + random() * (max - min);
}
