/**
 * Whether the bot is in each configured guild: an admin may remove it (Discord sends GUILD_DELETE
 * without `unavailable` to the session holding the guild, and from then on the bot's REST calls
 * about the guild answer 404 10004 Unknown Guild, its channels 10003) and add it back (GUILD_CREATE
 * with the whole guild). `GET /users/@me/guilds` lists the guilds the bot is in, in id order,
 * with Discord's `before` / `after` / `limit` (1–200, default 200) pagination.
 */
import type { APIUser } from 'discord-api-types/v10';
import { FormErrors, invalidFormBody, ok, type RestResult } from './errors.js';
import type { Gateway } from './gateway/gateway.js';
import type { GuildDirectory } from './guild-directory.js';
import { GuildChangeError } from './guild-changes.js';
import { guildCreatePayload, type NormalizedGuild } from './guilds.js';

/** Discord's largest page of `GET /users/@me/guilds`. */
export const MAX_GUILDS_PAGE = 200;

export interface GuildMembershipDeps {
  guilds: GuildDirectory;
  gateway: Pick<Gateway, 'dispatchGuildEvent'>;
  botUser: APIUser;
}

export class GuildMembership {
  private readonly removed = new Set<string>();

  constructor(private readonly deps: GuildMembershipDeps) {}

  /** Whether the bot is in the guild (an unknown id: false). */
  has(guildId: string): boolean {
    return this.deps.guilds.get(guildId) !== undefined && !this.removed.has(guildId);
  }

  /** The guild while the bot is in it. */
  guild(guildId: string): NormalizedGuild | undefined {
    return this.removed.has(guildId) ? undefined : this.deps.guilds.get(guildId);
  }

  /** Removes the bot from the guild: GUILD_DELETE `{ id }` to every session holding it. Returns the shards told. */
  removeBot(guildId: string): number[] {
    this.known(guildId);
    if (this.removed.has(guildId)) throw new GuildChangeError(400, `the bot is not in guild ${guildId}`);
    this.removed.add(guildId);
    return this.deps.gateway.dispatchGuildEvent(guildId, 'GUILD_DELETE', { id: guildId }, null);
  }

  /** Adds the bot back: GUILD_CREATE with the whole guild to every session of its shard. Returns the shards told. */
  addBot(guildId: string): number[] {
    const guild = this.known(guildId);
    if (!this.removed.delete(guildId)) throw new GuildChangeError(400, `the bot is already in guild ${guildId}`);
    return this.deps.gateway.dispatchGuildEvent(guildId, 'GUILD_CREATE', guildCreatePayload(guild, this.deps.botUser), null);
  }

  /** `GET /users/@me/guilds`: partial guilds, in id order, one page. */
  botGuilds(query: URLSearchParams): RestResult {
    const errors = new FormErrors();
    const limitText = query.get('limit');
    const limit = limitText === null ? MAX_GUILDS_PAGE : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GUILDS_PAGE) errors.add(['limit'], 'NUMBER_TYPE_MAX', `Int must be between 1 and ${MAX_GUILDS_PAGE}.`);
    const bound = (name: 'after' | 'before') => {
      const value = query.get(name);
      if (value === null) return undefined;
      if (!/^\d{1,20}$/.test(value)) errors.add([name], 'NUMBER_TYPE_COERCE', `Value "${value}" is not snowflake.`);
      return /^\d{1,20}$/.test(value) ? BigInt(value) : undefined;
    };
    const after = bound('after');
    const before = bound('before');
    if (!errors.ok) return invalidFormBody(errors);
    const ids = this.deps.guilds.list
      .filter((g) => !this.removed.has(g.id))
      .map((g) => ({ guild: g, id: BigInt(g.id) }))
      .filter(({ id }) => (after === undefined || id > after) && (before === undefined || id < before))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // With `before` alone, Discord returns the guilds just before it.
    const page = before !== undefined && after === undefined ? ids.slice(-limit) : ids.slice(0, limit);
    return ok(page.map(({ guild }) => ({ id: guild.id, name: guild.name, icon: null, banner: null, owner: false, permissions: '0', features: [] })));
  }

  private known(guildId: string): NormalizedGuild {
    const guild = this.deps.guilds.get(guildId);
    if (!guild) throw new GuildChangeError(404, `unknown guild ${guildId}`);
    return guild;
  }
}
