/**
 * Where open confirmations wait between the question and the press (/feed delete, bulk delete,
 * /feed import): what each one is about, by the id of the interaction that asked, and the marks
 * of presses being carried out. The question and the press may reach different replicas
 * (INTERACTIONS_MODE=http behind a load balancer), so with REDIS_URL this lives in Redis
 * (src/replicas/redis-pending.ts); one process keeps it in memory (here).
 *
 * Values are JSON text: the store never shares objects with its callers, in memory either, so
 * what a confirmation keeps is plain data in both (src/interactions/confirmations.ts checks it on
 * the way back).
 */
import { UserError } from './errors.js';

export interface PendingStore {
  /** Keeps `json` under `key` for `ttlMs`, replacing whatever was there. */
  put(key: string, json: string, ttlMs: number): Promise<void>;
  /** Removes and returns what is under `key`: one caller gets it, across every replica; undefined when gone or expired. */
  take(key: string): Promise<string | undefined>;
  /** Marks `key` as held by `owner` for `ttlMs`, unless someone holds it: true when this call got it. */
  claim(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Lets go of `owner`'s hold on `key` (a hold that expired and was taken by another is left alone). */
  release(key: string, owner: string): Promise<void>;
  /**
   * Drops every value and hold whose key names `guildId` as its second part (`kind:guild:asked`,
   * src/interactions/confirmations.ts): forgetting a server (src/guild-data/forget.ts). Returns how many.
   * Optional for stand-ins; both stores of the bot have it.
   */
  forgetGuild?(guildId: string): Promise<number>;
}

/** Whether a confirmation key (`kind:guild:asked`) belongs to `guildId`. */
function keyOfGuild(key: string, guildId: string): boolean {
  return key.split(':')[1] === guildId;
}

/**
 * The shared store did not answer (Redis down): the confirmation can be neither kept nor found,
 * and nothing was changed. Falling back to this process's memory would answer "expired" on every
 * other replica again, silently; the user is asked to try again instead.
 */
export class ConfirmationsUnavailableError extends UserError {
  constructor() {
    super('confirmation.unavailable');
  }
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
