/**
 * forgetGuild on every backend: the key, the settings, the sweep record and the departure mark of one server are
 * deleted on SQLite, PostgreSQL and Redis (real servers; skipped locally with a message when the
 * binaries are missing, never in CI), its open confirmations in Redis too; the other server keeps
 * everything, and deleting twice is harmless.
 */
import { expect, it } from 'vitest';
import { KeyStore } from '../../src/keys/store.js';
import { GuildSettingsStore } from '../../src/settings/store.js';
import { DepartureStore } from '../../src/guild-data/departures.js';
import { SweepStore } from '../../src/health/sweep/store.js';
import { forgetGuild } from '../../src/guild-data/forget.js';
import type { PendingStore } from '../../src/interactions/pending.js';
import { MemoryPendingStore } from '../../src/interactions/pending-memory.js';
import { RedisSharedState } from '../../src/replicas/redis-state.js';
import { silentLogger } from '../../src/logger.js';
import { BACKENDS, describeBackends } from '../keys/backends.js';

const SECRET = Buffer.alloc(32, 9);
const GONE = '1100000000000000011';
const KEPT = '1100000000000000012';

describeBackends(BACKENDS, 'forgetGuild', (ctx) => {
  it("deletes one server's key, settings, confirmations and departure mark, and nothing of another", async () => {
    const url = await ctx.newUrl();
    const logger = silentLogger();
    const keys = await KeyStore.open({ databaseUrl: url, secret: SECRET, logger });
    const settings = await GuildSettingsStore.open({ databaseUrl: url, logger });
    const departures = await DepartureStore.open({ databaseUrl: url, logger });
    const sweeps = await SweepStore.open({ databaseUrl: url, logger });
    // Confirmations live in Redis with REDIS_URL; in memory otherwise.
    const shared = ctx.kind === 'redis' ? await RedisSharedState.open(url, logger) : undefined;
    const pending: PendingStore = shared?.pendingConfirmations() ?? new MemoryPendingStore();
    try {
      for (const id of [GONE, KEPT]) {
        await keys.set(id, { apiKey: `fbk_key_of_${id}`, setBy: '1400000000000000001', setAt: '2026-11-01T10:00:00.000Z', scopes: ['feeds:read'] });
        await settings.update(id, (s) => ({ ...s, staleAfterDays: 5 }));
        await departures.mark(id, 1_000);
        await sweeps.update(id, (r) => ({ next: { ...r, digest: { day: 0, hour: 9 } }, result: undefined }));
        await pending.put(`delete:${id}:1800000000000000001`, '{"id":1}', 60_000);
        expect(await pending.claim(`import:${id}:1800000000000000002`, 'owner', 60_000)).toBe(true);
      }
      const services = { keys, settings, pending, departures, sweeps };
      expect(await forgetGuild(services, GONE)).toEqual(['key', 'settings', 'confirmations', 'sweeps']);
      // Twice (another process sweeping the same mark): nothing more, no error.
      await forgetGuild(services, GONE);

      expect(await keys.get(GONE)).toBeUndefined();
      expect((await settings.get(GONE)).staleAfterDays).toBeUndefined();
      expect(await departures.get(GONE)).toBeUndefined();
      expect((await sweeps.get(GONE)).digest).toBeUndefined();
      expect(await pending.take(`delete:${GONE}:1800000000000000001`)).toBeUndefined();
      expect(await pending.claim(`import:${GONE}:1800000000000000002`, 'another', 60_000)).toBe(true);

      expect((await keys.get(KEPT))?.apiKey).toBe(`fbk_key_of_${KEPT}`);
      expect((await settings.get(KEPT)).staleAfterDays).toBe(5);
      expect(await departures.get(KEPT)).toBe(1_000);
      expect((await sweeps.get(KEPT)).digest).toEqual({ day: 0, hour: 9 });
      expect(await pending.take(`delete:${KEPT}:1800000000000000001`)).toBe('{"id":1}');
      expect(await pending.claim(`import:${KEPT}:1800000000000000002`, 'another', 60_000)).toBe(false);
      // The records are gone from the backend itself, not only from this process's caches.
      const raw = await ctx.openRaw(url, 'feedbot-settings');
      expect((await raw.listEntries()).map((e) => e.guildId)).toEqual([KEPT]);
    } finally {
      await shared?.close();
      await sweeps.close();
      await departures.close();
      await settings.close();
      await keys.close();
    }
  });
});
