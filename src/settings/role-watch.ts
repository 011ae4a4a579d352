/**
 * Over the gateway, a role deleted in Discord leaves the guild's feed-manager roles at once
 * (GuildRoleDelete, Guilds intent): a deleted role can no longer be picked in `/feedbot managers
 * remove`, so without this it would hold one of the 25 places for good. HTTP mode gets no gateway
 * events; there `/feedbot managers list` shows such a role as Discord does (deleted-role).
 */
import { Events, type Client, type Role } from 'discord.js';
import type { Logger } from '../logger.js';
import { firstToAct, type SlotLease } from '../leases/lease.js';
import type { GuildSettingsStore } from './store.js';
import { tracer } from '../tracing/tracer.js';

/** Every process holding the shard receives the event: one of them writes (the write is idempotent anyway). */
const EVENT_LEASE_MS = 15 * 60_000;

interface RoleWatch {
  /** Resolves when every removal under way has been stored (before the store closes; tests). */
  settled(): Promise<void>;
}

export function watchDeletedRoles(client: Client, settings: GuildSettingsStore, logger: Logger, lease?: SlotLease): RoleWatch {
  const running = new Set<Promise<void>>();
  client.on(Events.GuildRoleDelete, (role: Role) => {
    const done = tracer()
      .inSpan('role_deleted', { root: true, attributes: { 'discord.guild.id': role.guild.id } }, async () => {
        if (!(await firstToAct(lease, `role-deleted:${role.id}`, EVENT_LEASE_MS))) return undefined;
        return settings.update(role.guild.id, (current) =>
          current.managerRoleIds.includes(role.id) ? { ...current, managerRoleIds: current.managerRoleIds.filter((id) => id !== role.id) } : current,
        );
      })
      .then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error, guildId: role.guild.id, roleId: role.id }, 'could not remove a deleted role from the feed managers'),
      )
      .finally(() => running.delete(done));
    running.add(done);
  });
  return {
    settled: async () => {
      await Promise.all([...running]);
    },
  };
}
