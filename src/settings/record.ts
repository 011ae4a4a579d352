/**
 * Reads one guild's stored settings record as a snapshot: the validated settings, and the exact
 * envelope they came from (what a compare-and-swap compares against). A record that is not valid
 * (hand-edited, corrupt, written by another version) reads as the defaults, so it never blocks a
 * command; it is logged once per distinct stored value, not on every read.
 */
import type { KeyBackend } from '../keys/backend.js';
import { storageError } from '../keys/errors.js';
import { describeIssues } from '../keys/schema.js';
import type { Logger } from '../logger.js';
import { GuildSettingsSchema, defaultSettings, type GuildSettings } from './schema.js';

export interface SettingsSnapshot {
  settings: GuildSettings;
  /** The stored envelope byte for byte; undefined when the guild has no record. */
  raw: string | undefined;
}

/** Guilds whose invalid record was already logged are remembered up to this many (oldest forgotten). */
const MAX_REMEMBERED_INVALID = 1_000;

export class SettingsRecordReader {
  /** guild id → the invalid envelope already logged for it. */
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly db: KeyBackend,
    private readonly logger: Logger,
  ) {}

  async read(guildId: string): Promise<SettingsSnapshot> {
    let entry;
    try {
      entry = await this.db.readEntry(guildId);
    } catch (error) {
      throw storageError(`could not read the settings of guild ${guildId}`, error, guildId);
    }
    if (entry === undefined) return { settings: defaultSettings(), raw: undefined };
    const parsed = GuildSettingsSchema.safeParse(entry.record);
    if (parsed.success) {
      this.reported.delete(guildId);
      return { settings: parsed.data, raw: entry.raw };
    }
    this.reportOnce(guildId, entry.raw, entry.record === undefined ? 'the stored envelope is not readable' : describeIssues(parsed.error));
    return { settings: defaultSettings(), raw: entry.raw };
  }

  private reportOnce(guildId: string, raw: string, problem: string): void {
    if (this.reported.get(guildId) === raw) return;
    this.reported.delete(guildId);
    this.reported.set(guildId, raw);
    if (this.reported.size > MAX_REMEMBERED_INVALID) {
      const oldest = this.reported.keys().next();
      if (!oldest.done) this.reported.delete(oldest.value);
    }
    // The problem names fields and rules, never the stored values.
    this.logger.warn({ guildId, problem }, 'stored guild settings are not valid; using the defaults until they are next changed');
  }
}
