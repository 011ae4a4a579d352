/**
 * Forgetting a server: every per-guild record feedbot keeps, deleted in one place. A store that
 * keeps something per guild adds one line to PER_GUILD_STORES (and docs/PRIVACY.md says what it
 * holds). Each deletion is idempotent, so running this twice (two processes sweeping the same
 * departures, a retry after a failure) is harmless: no lease is needed.
 */
import type { PendingStore } from '../interactions/pending.js';
import type { SweepStore } from '../health/sweep/store.js';
import type { KeyStore } from '../keys/store.js';
import type { GuildSettingsStore } from '../settings/store.js';
import type { DepartureStore } from './departures.js';

/** Everything forgetGuild deletes from. */
export interface GuildDataServices {
  keys: Pick<KeyStore, 'delete'>;
  settings: Pick<GuildSettingsStore, 'delete'>;
  /** Open confirmations (REDIS_URL or this process's memory). */
  pending: Pick<PendingStore, 'forgetGuild'>;
  departures: Pick<DepartureStore, 'clear'>;
  /** The health sweeps' last snapshot and the digest's plan (src/health/sweep/), when sweeps run. */
  sweeps?: Pick<SweepStore, 'delete'>;
}

interface PerGuildStore {
  /** For logs: what was deleted. */
  name: string;
  forget(services: GuildDataServices, guildId: string): Promise<unknown>;
}

/**
 * Every per-guild store but the departure mark, which goes last (below). The key goes first: a
 * health sweep in flight that writes its record after the sweeps' entry is deleted finds the
 * record gone, or (a guild's first sweep) the key gone, and deletes what it wrote instead of
 * bringing the guild back, in whichever process it runs (keepRecord in src/health/sweep/sweep.ts).
 */
const PER_GUILD_STORES: readonly PerGuildStore[] = [
  { name: 'key', forget: (s, id) => s.keys.delete(id) },
  { name: 'settings', forget: (s, id) => s.settings.delete(id) },
  { name: 'confirmations', forget: async (s, id) => s.pending.forgetGuild?.(id) },
  { name: 'sweeps', forget: async (s, id) => s.sweeps?.delete(id) },
];

/**
 * Deletes `guildId`'s key, settings, open confirmations and everything else PER_GUILD_STORES
 * lists, then its departure mark. The first failure rejects, the mark staying, so the next
 * sweep tries again. Resolves with the names of the stores deleted from.
 */
export async function forgetGuild(services: GuildDataServices, guildId: string): Promise<string[]> {
  const done: string[] = [];
  for (const store of PER_GUILD_STORES) {
    await store.forget(services, guildId);
    done.push(store.name);
  }
  await services.departures.clear(guildId);
  return done;
}
