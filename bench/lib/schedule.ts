/** Arrival schedules for open-loop scenarios, deterministic for a given seed. */
import { between, seeded } from './random.js';

export interface Keystroke {
  /** Offset from the start of the run (ms). */
  at: number;
  userId: string;
  subcommand: 'delete' | 'posts';
  /** What the option holds after this keystroke. */
  query: string;
}

/** Accounts the scenario guilds follow (bench/lib/sandbox-worker.ts), so every query has matches. */
const TARGETS = ['nasa', 'natgeo', 'esa', 'cocina', 'spacex', 'bbcmundo'];

function userIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => String(1400000000000001000n + BigInt(i)));
}

/**
 * `count` autocomplete interactions within `windowMs`, as people typing produce them: sessions
 * start at random times; each opens the option (an empty query) and types 1–7 characters of a
 * feed's account or id, 80–250 ms apart.
 */
export function typingSchedule(count: number, windowMs: number, seed = 1): Keystroke[] {
  const random = seeded(seed);
  const users = userIds(40);
  const events: Keystroke[] = [];
  // The longest session lasts 8 × 250 ms; sessions start early enough to end inside the window.
  const latestStart = Math.max(0, windowMs - 8 * 250 - 1);
  while (events.length < count) {
    const start = between(random, 0, latestStart);
    const userId = users[Math.floor(random() * users.length)]!;
    const subcommand = random() < 0.5 ? 'delete' : 'posts';
    const target = TARGETS[Math.floor(random() * TARGETS.length)]!;
    const typed = 1 + Math.floor(random() * 7);
    let at = start;
    for (let i = 0; i <= typed && events.length < count; i++) {
      events.push({ at, userId, subcommand, query: target.slice(0, i) });
      at += between(random, 80, 250);
    }
  }
  return events.sort((a, b) => a.at - b.at);
}

export interface CommandArrival {
  at: number;
  userId: string;
  command: 'list' | 'stats' | 'posts';
}

/** `count` commands at uniformly random times within `windowMs`: a mix of list, stats and posts. */
export function commandSchedule(count: number, windowMs: number, seed = 2): CommandArrival[] {
  const random = seeded(seed);
  const users = userIds(60);
  const events: CommandArrival[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    events.push({
      at: between(random, 0, windowMs - 1),
      userId: users[Math.floor(random() * users.length)]!,
      command: r < 0.5 ? 'list' : r < 0.75 ? 'stats' : 'posts',
    });
  }
  return events.sort((a, b) => a.at - b.at);
}
