/**
 * Open confirmations in one process's memory: tests and tools. The bot keeps them where every
 * process that may receive the press can read them (pending.ts says where).
 */
import type { PendingStore } from './pending.js';

/** Whether a confirmation key (`kind:guild:asked`) belongs to `guildId`. */
function keyOfGuild(key: string, guildId: string): boolean {
  return key.split(':')[1] === guildId;
}

interface Held {
  value: string;
  expiresAt: number;
}

/** One process's confirmations. Entries leave when taken (the asking process's timer takes the unanswered ones). */
export class MemoryPendingStore implements PendingStore {
  private readonly values = new Map<string, Held>();
  private readonly claims = new Map<string, Held>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Past this many entries, a write first drops the expired ones (only timers disposed at shutdown leave any). */
    private readonly sweepAbove = 1_000,
  ) {}

  async put(key: string, json: string, ttlMs: number): Promise<void> {
    this.sweep(this.values);
    this.values.set(key, { value: json, expiresAt: this.now() + ttlMs });
  }

  async take(key: string): Promise<string | undefined> {
    const held = this.live(this.values, key);
    this.values.delete(key);
    return held?.value;
  }

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    this.sweep(this.claims);
    if (this.live(this.claims, key)) return false;
    this.claims.set(key, { value: owner, expiresAt: this.now() + ttlMs });
    return true;
  }

  async release(key: string, owner: string): Promise<void> {
    if (this.claims.get(key)?.value === owner) this.claims.delete(key);
  }

  async forgetGuild(guildId: string): Promise<number> {
    let dropped = 0;
    for (const map of [this.values, this.claims]) {
      for (const key of [...map.keys()]) {
        if (keyOfGuild(key, guildId)) {
          map.delete(key);
          dropped += 1;
        }
      }
    }
    return dropped;
  }

  private live(map: Map<string, Held>, key: string): Held | undefined {
    const held = map.get(key);
    return held && held.expiresAt > this.now() ? held : undefined;
  }

  private sweep(map: Map<string, Held>): void {
    if (map.size < this.sweepAbove) return;
    const now = this.now();
    for (const [key, held] of map) if (held.expiresAt <= now) map.delete(key);
  }
}
