/**
 * A guild's channel names, for choices and titles ("→ #media"). Over the gateway the Guilds intent
 * keeps every channel in discord.js's cache and nothing is fetched. In HTTP-interactions mode
 * there is no such cache: the names come from Discord's REST API (GET /guilds/{id}/channels, one
 * request per guild and TTL, within Discord's per-route limits), and a caller that cannot wait
 * gets what is known, or nothing, and shows the channel as a mention or an id instead.
 */
import { Routes, type Client } from 'discord.js';
import { z } from 'zod';

const ChannelsSchema = z.array(z.looseObject({ id: z.string(), name: z.string().nullish() }));

export type ChannelNames = ReadonlyMap<string, string>;

export interface ChannelDirectoryOptions {
  /** How long fetched names are used before being fetched again. Default 5 minutes. */
  ttlMs?: number;
  maxGuilds?: number;
  now?: () => number;
}

export class ChannelDirectory {
  private readonly fetched = new Map<string, { names: ChannelNames; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<ChannelNames | undefined>>();
  private readonly ttlMs: number;
  private readonly maxGuilds: number;
  private readonly now: () => number;

  constructor(
    private readonly client: Client,
    opts: ChannelDirectoryOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 5 * 60_000;
    this.maxGuilds = opts.maxGuilds ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  /** id → name of the guild's channels, or undefined when unknown within `waitMs`. */
  async names(guildId: string, waitMs: number): Promise<ChannelNames | undefined> {
    const cached = this.client.guilds.cache.get(guildId)?.channels.cache;
    if (cached) return new Map(cached.map((c) => [c.id, c.name]));
    const known = this.fetched.get(guildId);
    if (known && known.expiresAt > this.now()) return known.names;
    const fetching = this.inFlight.get(guildId) ?? this.fetch(guildId);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(0, waitMs));
    });
    try {
      return (await Promise.race([fetching, gaveUp])) ?? known?.names;
    } finally {
      clearTimeout(timer);
    }
  }

  private fetch(guildId: string): Promise<ChannelNames | undefined> {
    const request = this.client.rest
      .get(Routes.guildChannels(guildId))
      .then((body) => {
        const names: ChannelNames = new Map(ChannelsSchema.parse(body).flatMap((c) => (c.name ? [[c.id, c.name] as const] : [])));
        this.fetched.delete(guildId);
        this.fetched.set(guildId, { names, expiresAt: this.now() + this.ttlMs });
        for (const oldest of this.fetched.keys()) {
          if (this.fetched.size <= this.maxGuilds) break;
          this.fetched.delete(oldest);
        }
        return names;
      })
      // A failed lookup only costs names: the caller shows ids.
      .catch(() => undefined)
      .finally(() => this.inFlight.delete(guildId));
    this.inFlight.set(guildId, request);
    return request;
  }
}
