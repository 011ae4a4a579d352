/**
 * Where open confirmations wait between the question and the press (/feed delete, bulk delete,
 * /feed import): what each one is about, by the id of the interaction that asked, and the marks
 * of presses being carried out. The question and the press may reach different replicas
 * (INTERACTIONS_MODE=http behind a load balancer), so with REDIS_URL this lives in Redis
 * (src/replicas/redis-pending.ts); else in the key store's database, which one host's processes
 * share (pending-sql.ts). pending-memory.ts keeps it in one process's memory (tests, tools).
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
