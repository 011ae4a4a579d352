/**
 * Per-guild settings (schema.ts) in their own Keyv namespace on the key store's backend
 * (DATABASE_URL: SQLite, PostgreSQL or Redis). Updates for one guild are serialized in this
 * process; a record that fails validation is logged and read as the defaults, so a bad record
 * never blocks a command.
 */
import type { KeyBackend } from '../keys/backend.js';
import { openBackend } from '../keys/backends.js';
import { describeIssues } from '../keys/schema.js';
import { storageError } from '../keys/errors.js';
import type { Logger } from '../logger.js';
import { GuildSettingsSchema, defaultSettings, type GuildSettings } from './schema.js';

export const SETTINGS_NAMESPACE = 'feedbot-settings';

export interface GuildSettingsStoreOptions {
  databaseUrl: string;
  logger: Logger;
  namespace?: string;
}

export class GuildSettingsStore {
  private readonly chains = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly db: KeyBackend,
    private readonly logger: Logger,
  ) {}

  static async open(opts: GuildSettingsStoreOptions): Promise<GuildSettingsStore> {
    const logger = opts.logger.child({ component: 'settings' });
    const db = await openBackend({ databaseUrl: opts.databaseUrl, namespace: opts.namespace ?? SETTINGS_NAMESPACE, logger });
    return new GuildSettingsStore(db, logger);
  }

  /** The guild's settings, or the defaults when none are stored (or the stored record is unusable). */
  async get(guildId: string): Promise<GuildSettings> {
    let raw: unknown;
    try {
      raw = await this.db.keyv.get(guildId);
    } catch (error) {
      throw storageError(`could not read the settings of guild ${guildId}`, error, guildId);
    }
    if (raw === undefined || raw === null) return defaultSettings();
    const parsed = GuildSettingsSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    this.logger.warn({ guildId, problem: describeIssues(parsed.error) }, 'stored guild settings are not valid; using the defaults');
    return defaultSettings();
  }

  /** Applies `change` to the current settings and stores the result; returns what was stored. */
  update(guildId: string, change: (current: GuildSettings) => GuildSettings): Promise<GuildSettings> {
    const previous = this.chains.get(guildId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const next = GuildSettingsSchema.parse(change(await this.get(guildId)));
      try {
        await this.db.keyv.set(guildId, next);
      } catch (error) {
        throw storageError(`could not store the settings of guild ${guildId}`, error, guildId);
      }
      return next;
    });
    const tail = run.catch(() => undefined);
    this.chains.set(guildId, tail);
    void tail.then(() => {
      if (this.chains.get(guildId) === tail) this.chains.delete(guildId);
    });
    return run;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
    await this.db.close();
  }
}
