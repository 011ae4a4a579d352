/**
 * The sweep records (record.ts) on the key store's backend (DATABASE_URL), in their own Keyv
 * namespace. update() is a compare-and-swap on the stored envelope, retried on a fresh read when
 * another process wrote in between; its `change` also returns a result, and only the attempt that
 * was stored returns it, so what a sweep posts is decided by the write that won: two processes
 * sweeping one guild at once post each change once. (A guild's first record has nothing to compare
 * with, as in the settings store; the slot lease keeps two sweeps of one guild apart there.)
 */
import type { KeyBackend } from '../../keys/backend.js';
import { openBackend } from '../../keys/backends.js';
import type { Logger } from '../../logger.js';
import { SWEEP_NAMESPACE, SweepRecordSchema, emptyRecord, parseRecord, type SweepRecord } from './record.js';

const MAX_ATTEMPTS = 8;

export class SweepStore {
  private constructor(private readonly db: KeyBackend) {}

  static async open(opts: { databaseUrl: string; logger: Logger; namespace?: string }): Promise<SweepStore> {
    const db = await openBackend({ databaseUrl: opts.databaseUrl, namespace: opts.namespace ?? SWEEP_NAMESPACE, logger: opts.logger.child({ component: 'sweeps' }) });
    return new SweepStore(db);
  }

  /** 'sqlite', 'postgres' or 'redis'. */
  get kind(): string {
    return this.db.kind;
  }

  async get(guildId: string): Promise<SweepRecord> {
    return parseRecord((await this.db.readEntry(guildId))?.record);
  }

  /** Every guild's record (the digest plans); unreadable ones are skipped. */
  async list(): Promise<Array<{ guildId: string; record: SweepRecord }>> {
    return (await this.db.listEntries()).map((e) => ({ guildId: e.guildId, record: parseRecord(e.record) }));
  }

  /** Whether a record is stored for the guild (readable or not): what a sweep found before its request. */
  async has(guildId: string): Promise<boolean> {
    return (await this.db.readEntry(guildId)) !== undefined;
  }

  /**
   * Applies `change` to the current record and stores the result; returns the `result` of the
   * attempt that was stored (`change` may run more than once and must only compute from its input).
   */
  async update<R>(guildId: string, change: (current: SweepRecord) => { next: SweepRecord; result: R }): Promise<R> {
    return (await this.write(guildId, change, true))!.result;
  }

  /**
   * update() that never creates: `change` applies only while a record is stored, by the same
   * compare-and-swap, and undefined is returned (nothing written) once there is none. For a write
   * computed from what was read before a slow step (a sweep's request): if the record was deleted
   * meanwhile (the guild forgotten, by any process sharing the store), it stays deleted.
   */
  async updateExisting<R>(guildId: string, change: (current: SweepRecord) => { next: SweepRecord; result: R }): Promise<{ result: R } | undefined> {
    return this.write(guildId, change, false);
  }

  private async write<R>(guildId: string, change: (current: SweepRecord) => { next: SweepRecord; result: R }, create: boolean): Promise<{ result: R } | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      const entry = await this.db.readEntry(guildId);
      if (!entry && !create) return undefined;
      const current = entry ? parseRecord(entry.record) : emptyRecord();
      const { next, result } = change(structuredClone(current));
      const valid = SweepRecordSchema.parse(next);
      if (JSON.stringify(valid) === JSON.stringify(current)) return { result };
      const stored = entry ? await this.db.replaceIf(guildId, entry.raw, valid) : await this.db.keyv.set(guildId, valid);
      if (stored) return { result };
      if (attempt === MAX_ATTEMPTS) throw new Error(`the sweep record of guild ${guildId} kept changing under ${attempt} attempts`);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt));
    }
  }

  async delete(guildId: string): Promise<void> {
    await this.db.keyv.delete(guildId);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
