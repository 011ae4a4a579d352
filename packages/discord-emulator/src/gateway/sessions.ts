/** The gateway's sessions, live or waiting for a RESUME, and which one owns a guild. */
import { shardForGuild } from '../snowflake.js';
import { shardStatus, type Session, type ShardStatus } from './protocol.js';

export class SessionTable {
  private readonly sessions = new Map<string, Session>();

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
  }

  /** Ends a session: it can no longer be resumed. */
  end(session: Session): void {
    this.sessions.delete(session.id);
  }

  status(): ShardStatus[] {
    return [...this.sessions.values()].map(shardStatus);
  }

  /** Sessions of shard `shardId` (of any shard count), or every session. */
  ofShard(shardId?: number): Session[] {
    return [...this.sessions.values()].filter((s) => shardId === undefined || s.shard[0] === shardId);
  }

  /** Of the ready sessions that hold a guild, the connected and most recent one (several may hold it). */
  forGuild(guildId: string): Session | undefined {
    let best: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.readyAt === null || shardForGuild(guildId, s.shard[1]) !== s.shard[0]) continue;
      if (!best || rank(s) > rank(best) || (rank(s) === rank(best) && s.identifiedAt > best.identifiedAt)) best = s;
    }
    return best;
  }

  /**
   * Every ready session that holds a guild, by its own shard count: several processes may have
   * identified for the same shard, or for shards of different counts, and Discord sends the
   * guild's events to each.
   */
  allForGuild(guildId: string): Session[] {
    return [...this.sessions.values()].filter((s) => s.readyAt !== null && shardForGuild(guildId, s.shard[1]) === s.shard[0]);
  }

  /** A shard count sessions use, to name the shard a guild would need. */
  anyShardCount(): number {
    return this.sessions.values().next().value?.shard[1] ?? 1;
  }
}

const rank = (s: Session) => Number(s.conn !== null);

/**
 * The statuses of shards `shardIds` (default every shard 0..shardCount-1; shardCount defaults to
 * the first live shard's) once each is connected and has all its guilds, by id; else undefined.
 */
export function readyShards(status: ShardStatus[], opts: { shardCount?: number; shardIds?: number[] }): ShardStatus[] | undefined {
  const live = status.filter((s) => s.connected && s.guildsSentAt !== null);
  const count = opts.shardCount ?? live[0]?.shard[1];
  if (count === undefined) return undefined;
  const byShard = new Map(live.filter((s) => s.shard[1] === count).map((s) => [s.shard[0], s]));
  const wanted = opts.shardIds ?? Array.from({ length: count }, (_, id) => id);
  if (!wanted.every((id) => byShard.has(id))) return undefined;
  return wanted.toSorted((a, b) => a - b).map((id) => byShard.get(id)!);
}
