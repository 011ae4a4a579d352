/**
 * What a handler gets besides its interaction: the services, the user's language, the responder,
 * and guards that throw typed user errors.
 */
import { PermissionFlagsBits, type Interaction } from 'discord.js';
import type { Dispatcher } from 'undici';
import type { ApiAuth, FeedApiClient } from '../api/client.js';
import type { Actor, AuditTrail } from '../audit/events.js';
import type { ChannelDirectory } from '../bot/channel-directory.js';
import type { GuildSettingsStore } from '../settings/store.js';
import type { KeyStore } from '../keys/store.js';
import { langFor, translator, type Lang, type Translator } from '../i18n/index.js';
import type { Logger } from '../logger.js';
import { GuildOnlyError, MissingPermissionError, NoApiKeyError, type GuardedAction } from './errors.js';
import type { Responder } from './responder.js';
import type { PendingStore } from './pending.js';
import type { GuildDataRetention } from '../guild-data/retention.js';
import type { HealthSweeps } from '../health/sweep/index.js';

export interface BotServices {
  api: FeedApiClient;
  keys: KeyStore;
  /** Per-guild settings (audit channel, feed-manager roles, health threshold), beside the keys. */
  settings: GuildSettingsStore;
  /** Posts what changed to the guild's audit channel, without making the caller wait. */
  audit: AuditTrail;
  /** Channel names of a guild: the gateway's cache, or Discord's REST API in HTTP mode. */
  channels: ChannelDirectory;
  logger: Logger;
  /** Acknowledge an interaction after this long without an answer (default 1.5 s). */
  deferAfterMs?: number;
  /** Open confirmations by asking interaction: this process's memory, or shared by the replicas (REDIS_URL). */
  pending: PendingStore;
  /** Time a delete confirmation stays valid (default 60 s). */
  confirmTtlMs?: number;
  /** undici dispatcher for downloading attachments (/feed import); undici's global one when absent (tests: a MockAgent). */
  downloads?: Dispatcher;
  now?: () => number;
  /** Forgetting servers (src/guild-data/): `/feedbot forget` deletes through it. */
  guildData?: Pick<GuildDataRetention, 'forget'>;
  /** The running health sweeps and weekly digest, once started (HEALTH_SWEEP_SECONDS); absent in tools and tests that run none. */
  sweeps?: HealthSweeps;
}

export class HandlerContext {
  readonly lang: Lang;
  readonly t: Translator;

  constructor(
    readonly services: BotServices,
    readonly interaction: Interaction,
    readonly responder: Responder | undefined,
  ) {
    this.lang = langFor(interaction.locale);
    this.t = translator(this.lang);
  }

  now(): number {
    return (this.services.now ?? Date.now)();
  }

  get respond(): Responder {
    if (!this.responder) throw new Error('This interaction cannot be answered with a message');
    return this.responder;
  }

  guildId(): string {
    const id = this.interaction.guildId;
    if (!id) throw new GuildOnlyError();
    return id;
  }

  /** Manage Server or Administrator, checked at run time whatever the command's defaults say. */
  requireManageGuild(action: GuardedAction): Actor {
    if (!this.hasManageGuild()) throw new MissingPermissionError(action);
    return this.allowed({ userId: this.interaction.user.id });
  }

  /**
   * Manage Server, or one of the guild's feed-manager roles (`/feedbot managers`), read at run
   * time: a role removed a second ago no longer allows anything. The actor says which role did.
   */
  async requireFeedManager(action: GuardedAction): Promise<Actor> {
    const userId = this.interaction.user.id;
    if (this.hasManageGuild()) return this.allowed({ userId });
    const managerRoles = (await this.services.settings.get(this.guildId())).managerRoleIds;
    const memberRoles = memberRoleIds(this.interaction);
    const via = managerRoles.find((role) => memberRoles.includes(role));
    if (via === undefined) throw new MissingPermissionError(action, managerRoles.length > 0);
    return this.allowed({ userId, viaRoleId: via });
  }

  /** Who is acting, and the manager role that allowed it once a precondition checked (for audit posts). */
  actor(): Actor {
    return this.checkedActor ?? { userId: this.interaction.user.id };
  }

  private checkedActor: Actor | undefined;

  private allowed(actor: Actor): Actor {
    this.checkedActor = actor;
    return actor;
  }

  private hasManageGuild(): boolean {
    return this.interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild, true) ?? false;
  }

  /** The guild's credentials, or a user error telling an admin to set a key. */
  async auth(): Promise<ApiAuth> {
    const guildId = this.guildId();
    const stored = await this.services.keys.get(guildId);
    if (!stored) throw new NoApiKeyError();
    return { apiKey: stored.apiKey, guildId };
  }

  /** Runs one API operation with the guild's credentials. */
  async call<T>(op: (api: FeedApiClient, auth: ApiAuth) => Promise<T>): Promise<T> {
    return op(this.services.api, await this.auth());
  }
}

/**
 * The member's role ids: a cached GuildMember (gateway) or the interaction's raw member (HTTP,
 * uncached guilds). Without @everyone (id = the guild's), which only the cached member lists: both
 * transports must allow the same members.
 */
function memberRoleIds(interaction: Interaction): readonly string[] {
  const member = interaction.member;
  if (!member) return [];
  const roles = Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
  return roles.filter((role) => role !== interaction.guildId);
}
