/**
 * "The bot left this server at …" marks, one record per guild in their own namespace
 * (`feedbot-departures`) on the key store's backend (DATABASE_URL), in the clear: a time and
 * nothing else. A mark is what makes a pending deletion survive a restart and reach every process
 * sharing the store; retention.ts deletes the guild's data once its mark is old enough.
 */
import { z } from 'zod';
import type { KeyBackend } from '../keys/backend.js';
import { openBackend } from '../keys/backends.js';
import { storageError } from '../keys/errors.js';
import type { Logger } from '../logger.js';

const DEPARTURES_NAMESPACE = 'feedbot-departures';

const DepartureSchema = z.object({ v: z.literal(1), leftAt: z.number().int().nonnegative() });

interface Departure {
  guildId: string;
  /** Epoch ms the removal was noticed. */
  leftAt: number;
}

const GUILD_ID = /^\d{1,32}$/;

function checked(guildId: string): string {
  if (!GUILD_ID.test(guildId)) throw new TypeError('guild id must be a Discord snowflake');
  return guildId;
}

export class DepartureStore {
  private constructor(private readonly db: KeyBackend) {}

  static async open(opts: { databaseUrl: string; logger: Logger; namespace?: string }): Promise<DepartureStore> {
    return new DepartureStore(await openBackend({ databaseUrl: opts.databaseUrl, namespace: opts.namespace ?? DEPARTURES_NAMESPACE, logger: opts.logger.child({ component: 'guild-data' }) }));
  }

  /** When the bot was seen leaving the guild; undefined when it was not (or the record is unreadable). */
  async get(guildId: string): Promise<number | undefined> {
    const id = checked(guildId);
    let entry;
    try {
      entry = await this.db.readEntry(id);
    } catch (error) {
      throw storageError(`could not read the departure of guild ${id}`, error, id);
    }
    const parsed = DepartureSchema.safeParse(entry?.record);
    return parsed.success ? parsed.data.leftAt : undefined;
  }

  /**
   * Marks the guild as left at `leftAt`, unless it already is: the first mark counts, so a
   * reconciliation that finds the guild missing again does not push its deletion back. True when
   * this call wrote the mark.
   */
  async mark(guildId: string, leftAt: number): Promise<boolean> {
    const id = checked(guildId);
    if ((await this.get(id)) !== undefined) return false;
    try {
      await this.db.keyv.set(id, { v: 1, leftAt });
    } catch (error) {
      throw storageError(`could not store the departure of guild ${id}`, error, id);
    }
    return true;
  }

  /** Removes the mark (the bot is back, or the data is deleted); true if there was one. */
  async clear(guildId: string): Promise<boolean> {
    const id = checked(guildId);
    try {
      return await this.db.keyv.delete(id);
    } catch (error) {
      throw storageError(`could not delete the departure of guild ${id}`, error, id);
    }
  }

  /** Every mark (unreadable records read as left now, so they are not kept forever). */
  async list(now: number): Promise<Departure[]> {
    let entries;
    try {
      entries = await this.db.listEntries();
    } catch (error) {
      throw storageError('could not list the departures', error);
    }
    return entries.map(({ guildId, record }) => {
      const parsed = DepartureSchema.safeParse(record);
      return { guildId, leftAt: parsed.success ? parsed.data.leftAt : now };
    });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
