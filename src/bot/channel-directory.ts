/**
 * A guild's channels: their names, for choices and titles ("→ #media"), which exist, for feed
 * health, and their types, for /feed import (which forwards only into text and announcement
 * channels, like /feed create). Over the gateway the Guilds intent keeps every channel in
 * discord.js's cache and nothing is fetched. In HTTP-interactions mode there is no such cache:
 * the list comes from Discord's REST API (GET /guilds/{id}/channels, one request per guild at a
 * time, within Discord's per-route limits), and a caller that cannot wait gets what is known, or
 * nothing, and shows the channel as a mention or an id instead.
 */
import { Routes, type ChannelType, type Client } from 'discord.js';
import { z } from 'zod';
import { within } from '../within.js';

const ChannelsSchema = z.array(z.looseObject({ id: z.string(), name: z.string().nullish(), type: z.number().int().nullish() }));

type ChannelNames = ReadonlyMap<string, string>;
/** id → type of every channel the guild has; undefined when Discord's answer did not say (then no type can be assumed). */
export type ChannelTypes = ReadonlyMap<string, ChannelType | undefined>;

interface ChannelDirectoryOptions {
  /** How long fetched names are used before being fetched again. Default 5 minutes. */
  ttlMs?: number;
  /**
   * How old a fetched list may be to say a channel does not exist. Shorter than `ttlMs`: a stale
   * name only looks old, a stale list wrongly marks a new channel as deleted. Default 1 minute.
   */
  existenceTtlMs?: number;
  /**
   * A fetched list older than this is fetched again before it may say that a channel a caller
   * expects is missing (a channel created since would otherwise look deleted). Default 5 s.
   */
  confirmMissingMs?: number;
  /** After a failed fetch, no new one for this long (Discord's limits; the caller goes on without). Default 15 s. */
  retryAfterFailureMs?: number;
  maxGuilds?: number;
  now?: () => number;
}

interface Fetched {
  names: ChannelNames;
  /** Same channels as `names`. */
  types: ChannelTypes;
  fetchedAt: number;
}

export class ChannelDirectory {
  private readonly fetched = new Map<string, Fetched>();
  private readonly inFlight = new Map<string, Promise<Fetched | undefined>>();
  private readonly failedAt = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly existenceTtlMs: number;
  private readonly confirmMissingMs: number;
  private readonly retryAfterFailureMs: number;
  private readonly maxGuilds: number;
  private readonly now: () => number;

  constructor(
    private readonly client: Client,
    opts: ChannelDirectoryOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 5 * 60_000;
    this.existenceTtlMs = opts.existenceTtlMs ?? 60_000;
    this.confirmMissingMs = opts.confirmMissingMs ?? 5_000;
    this.retryAfterFailureMs = opts.retryAfterFailureMs ?? 15_000;
    this.maxGuilds = opts.maxGuilds ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  /** id → name of the guild's channels, or undefined when unknown within `waitMs`. */
  async names(guildId: string, waitMs: number): Promise<ChannelNames | undefined> {
    const cached = this.gatewayChannels(guildId);
    if (cached) return new Map(cached.map((c) => [c.id, c.name]));
    const known = this.fetched.get(guildId);
    if (known && this.now() - known.fetchedAt < this.ttlMs) return known.names;
    return ((await this.fetchWithin(guildId, waitMs)) ?? known)?.names;
  }

  /**
   * The ids of the guild's channels, or undefined when the list is unknown (HTTP mode, and the
   * REST lookup failed or took longer than `waitMs`): then nobody can say a channel is missing.
   * `expected`: channels the caller is about to look for (feeds' destinations); one missing from a
   * fetched list is confirmed by a list at most `confirmMissingMs` old.
   */
  async channelIds(guildId: string, waitMs: number, expected: Iterable<string> = []): Promise<ReadonlySet<string> | undefined> {
    const types = await this.channelTypes(guildId, waitMs, expected);
    return types ? new Set(types.keys()) : undefined;
  }

  /** As `channelIds`, with each channel's type: the same channels, as fresh. */
  async channelTypes(guildId: string, waitMs: number, expected: Iterable<string> = []): Promise<ChannelTypes | undefined> {
    const cached = this.gatewayChannels(guildId);
    if (cached) return new Map(cached.map((c) => [c.id, c.type]));
    const known = this.fetched.get(guildId);
    if (known) {
      const lacksExpected = [...expected].some((id) => !known.names.has(id));
      const age = this.now() - known.fetchedAt;
      if (age < (lacksExpected ? Math.min(this.confirmMissingMs, this.existenceTtlMs) : this.existenceTtlMs)) return known.types;
    }
    return (await this.fetchWithin(guildId, waitMs))?.types;
  }

  /**
   * The Guilds intent's cache, once the guild is available: at start-up, until its GUILD_CREATE
   * arrives, a guild is known by id only and its empty channel cache would mean nothing.
   */
  private gatewayChannels(guildId: string) {
    const guild = this.client.guilds.cache.get(guildId);
    return guild?.available ? guild.channels.cache : undefined;
  }

  private async fetchWithin(guildId: string, waitMs: number): Promise<Fetched | undefined> {
    const failedAt = this.failedAt.get(guildId);
    if (failedAt !== undefined && this.now() - failedAt < this.retryAfterFailureMs) return undefined;
    return within(this.inFlight.get(guildId) ?? this.fetch(guildId), waitMs);
  }

  /**
   * Lists older than `ttlMs` are never used again (names() and channelTypes() fetch anew), nor
   * failures older than `retryAfterFailureMs`: left until `maxGuilds` newer ones pushed them out,
   * they would hold up to 1,000 guilds' channel lists for good (memory per server).
   * Both maps are in time order (each write deletes, then sets), so the expired are at the front.
   */
  private dropExpired(): void {
    const now = this.now();
    for (const [id, known] of this.fetched) {
      if (now - known.fetchedAt < this.ttlMs) break;
      this.fetched.delete(id);
    }
    for (const [id, at] of this.failedAt) {
      if (now - at < this.retryAfterFailureMs) break;
      this.failedAt.delete(id);
    }
  }

  /** Guilds whose channel list or failure is remembered (tests). */
  get remembered(): number {
    return this.fetched.size + this.failedAt.size;
  }

  private fetch(guildId: string): Promise<Fetched | undefined> {
    const request = this.client.rest
      .get(Routes.guildChannels(guildId))
      .then((body) => {
        const channels = ChannelsSchema.parse(body).flatMap(({ id, name, type }) => (name ? [{ id, name, type: type ?? undefined }] : []));
        const names: ChannelNames = new Map(channels.map((c) => [c.id, c.name]));
        // A number from Discord, kept as it came: a type newer than discord.js's enum is simply not text.
        const types: ChannelTypes = new Map(channels.map((c) => [c.id, c.type as ChannelType | undefined]));
        const entry = { names, types, fetchedAt: this.now() };
        this.failedAt.delete(guildId);
        this.fetched.delete(guildId);
        this.dropExpired();
        this.fetched.set(guildId, entry);
        for (const oldest of this.fetched.keys()) {
          if (this.fetched.size <= this.maxGuilds) break;
          this.fetched.delete(oldest);
        }
        return entry;
      })
      // A failed lookup only costs names and health marks: the caller shows ids, without marks.
      .catch(() => {
        this.failedAt.delete(guildId);
        this.dropExpired();
        this.failedAt.set(guildId, this.now());
        if (this.failedAt.size > this.maxGuilds) this.failedAt.delete(this.failedAt.keys().next().value!);
        return undefined;
      })
      .finally(() => this.inFlight.delete(guildId));
    this.inFlight.set(guildId, request);
    return request;
  }
}
