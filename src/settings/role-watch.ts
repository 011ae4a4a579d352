/**
 * Over the gateway, a role deleted in Discord leaves the guild's feed-manager roles at once
 * (GuildRoleDelete, Guilds intent): a deleted role can no longer be picked in `/feedbot managers
 * remove`, so without this it would hold one of the 25 places for good. HTTP mode gets no gateway
 * events; there `/feedbot managers list` shows such a role as Discord does (deleted-role).
 */
import { Events, type Role } from 'discord.js';
import type { Logger } from '../logger.js';
import { firstToAct, type SlotLease } from '../leases/lease.js';
import type { GuildSettingsStore } from './store.js';
import type { GatewayListener } from '../bot/gateway-listeners.js';

/** Every process holding the shard receives the event: one of them writes (the write is idempotent anyway). */
const EVENT_LEASE_MS = 15 * 60_000;

interface RoleWatchDeps {
  settings: GuildSettingsStore;
  logger: Logger;
  /** Shared by the processes on the shard (src/leases/); absent: this process writes alone. */
  lease?: SlotLease | undefined;
}

/** A deleted role stops being a feed-manager role (it could not be picked to remove it any more). */
export const roleDeleted: GatewayListener<Events.GuildRoleDelete, RoleWatchDeps> = {
  event: Events.GuildRoleDelete,
  component: 'settings',
  span: 'role_deleted',
  attributes: (role) => ({ 'discord.guild.id': role.guild.id }),
  async run({ settings, logger, lease }, role: Role) {
    try {
      if (!(await firstToAct(lease, `role-deleted:${role.id}`, EVENT_LEASE_MS))) return;
      await settings.update(role.guild.id, (current) =>
        current.managerRoleIds.includes(role.id) ? { ...current, managerRoleIds: current.managerRoleIds.filter((id) => id !== role.id) } : current,
      );
    } catch (error) {
      logger.warn({ err: error, guildId: role.guild.id, roleId: role.id }, 'could not remove a deleted role from the feed managers');
    }
  },
};
