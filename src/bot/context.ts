/**
 * What a handler gets besides its interaction: the services, the user's language, the responder,
 * and guards that throw typed user errors.
 */
import { PermissionFlagsBits, type Interaction } from 'discord.js';
import type { ApiAuth, FeedApiClient } from '../api/client.js';
import type { ChannelDirectory } from './channel-directory.js';
import type { KeyStore } from '../keys/store.js';
import { langFor, translator, type Lang, type Translator } from '../i18n/index.js';
import type { Logger } from '../logger.js';
import { GuildOnlyError, MissingPermissionError, NoApiKeyError, type GuardedAction } from './errors.js';
import type { Responder } from './responder.js';

export interface BotServices {
  api: FeedApiClient;
  keys: KeyStore;
  /** Channel names of a guild: the gateway's cache, or Discord's REST API in HTTP mode. */
  channels: ChannelDirectory;
  logger: Logger;
  /** Acknowledge an interaction after this long without an answer (default 1.5 s). */
  deferAfterMs?: number;
  /** Time a delete confirmation stays valid (default 60 s). */
  confirmTtlMs?: number;
  now?: () => number;
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
  requireManageGuild(action: GuardedAction): void {
    const perms = this.interaction.memberPermissions;
    const ok = perms?.has(PermissionFlagsBits.ManageGuild, true) ?? false;
    if (!ok) throw new MissingPermissionError(action);
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
