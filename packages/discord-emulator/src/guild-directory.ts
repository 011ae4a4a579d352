/**
 * The configured guilds, by id and in order, the guild each channel belongs to, and the guilds of
 * each shard. Guilds keep their ids; their channels come and go (guild-changes.ts).
 */
import { normalizeGuild, type NormalizedGuild } from './guilds.js';
import type { EmulatedChannel, EmulatedGuild } from './types.js';

/** Shard counts whose guild index is kept; a client trying many counts must not grow memory. */
const SHARD_INDEXES_KEPT = 8;

export class GuildDirectory {
  /** In configuration order: the first one is where interactions go when none is named. */
  readonly list: NormalizedGuild[] = [];
  private readonly byId = new Map<string, NormalizedGuild>();
  private readonly channels = new Map<string, { guild: NormalizedGuild; channel: EmulatedChannel }>();
  /** `guild_id >> 22` of `list[i]`: below 2^53, so the shard is plain number arithmetic. */
  private readonly shardKeys: number[] = [];
  private readonly byShardCount = new Map<number, NormalizedGuild[][]>();

  constructor(guilds: EmulatedGuild[]) {
    for (const input of guilds) this.add(input);
  }

  get(id: string): NormalizedGuild | undefined {
    return this.byId.get(id);
  }

  channel(id: string): { guild: NormalizedGuild; channel: EmulatedChannel } | undefined {
    return this.channels.get(id);
  }

  /** Adds a channel to its guild (at the end of the guild's list, as Discord lists a new one). */
  addChannel(guild: NormalizedGuild, channel: EmulatedChannel): void {
    guild.channels.push(channel);
    this.channels.set(channel.id, { guild, channel });
  }

  /** Removes a channel; what was there is returned. */
  removeChannel(id: string): { guild: NormalizedGuild; channel: EmulatedChannel } | undefined {
    const found = this.channels.get(id);
    if (!found) return undefined;
    this.channels.delete(id);
    const index = found.guild.channels.indexOf(found.channel);
    if (index >= 0) found.guild.channels.splice(index, 1);
    return found;
  }

  /**
   * The guilds of shard `shardId` of `shardCount` (`(guild_id >> 22) % shardCount`), in
   * configuration order. Every shard of a count is indexed in one pass the first time the count is
   * asked for, so a hundred shards identifying cost one pass over the guilds, not a hundred.
   */
  ofShard(shardId: number, shardCount: number): NormalizedGuild[] {
    let index = this.byShardCount.get(shardCount);
    if (!index) {
      index = Array.from({ length: shardCount }, (): NormalizedGuild[] => []);
      for (let i = 0; i < this.list.length; i++) index[this.shardKeys[i]! % shardCount]!.push(this.list[i]!);
      if (this.byShardCount.size >= SHARD_INDEXES_KEPT) this.byShardCount.delete(this.byShardCount.keys().next().value!);
      this.byShardCount.set(shardCount, index);
    }
    return index[shardId] ?? [];
  }

  private add(input: EmulatedGuild): void {
    const guild = normalizeGuild(input);
    if (this.byId.has(guild.id)) throw new Error(`duplicate guild id ${guild.id}`);
    this.byId.set(guild.id, guild);
    this.list.push(guild);
    this.shardKeys.push(Number(BigInt(guild.id) >> 22n));
    for (const channel of guild.channels) this.channels.set(channel.id, { guild, channel });
  }
}
