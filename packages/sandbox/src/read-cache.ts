/**
 * In-memory copies of the two reads every authenticated `GET /feeds` makes: key hash → identity
 * (server, scopes, plan, per-key limit) and guild → feed list. Answering them from SQLite put two
 * queued round trips on one connection in front of every request.
 *
 * Only correct together with its invalidation (store.ts): each write through the store drops the
 * guild it touched, and a commit by another connection drops everything (commit-watch.ts).
 * `generation` changes on every drop; a fill stores its rows only if no drop happened while its
 * query was in flight, so a read that raced a write cannot put stale rows back.
 *
 * Cached values are frozen: they are shared by every request that reads them.
 */
import type { FeedRecord, KeyIdentity } from './records.js';

/** Past this many entries the cache starts over (one key per server: only huge data sets reach it). */
const MAX_ENTRIES = 20_000;

export class ReadCache {
  private readonly keysByHash = new Map<string, KeyIdentity>();
  private readonly hashByGuild = new Map<string, string>();
  private readonly feedsByGuild = new Map<string, readonly FeedRecord[]>();
  private gen = 0;

  get generation(): number {
    return this.gen;
  }

  key(keyHash: string): KeyIdentity | undefined {
    return this.keysByHash.get(keyHash);
  }

  feeds(guildId: string): readonly FeedRecord[] | undefined {
    return this.feedsByGuild.get(guildId);
  }

  /** Stores `identity` unless something was dropped since `generation` was read; returns the frozen value. */
  putKey(generation: number, identity: KeyIdentity): KeyIdentity {
    const frozen = Object.freeze({ ...identity, scopes: Object.freeze([...identity.scopes]) as KeyIdentity['scopes'] });
    if (generation !== this.gen) return frozen;
    if (this.keysByHash.size >= MAX_ENTRIES) this.clear();
    const previous = this.hashByGuild.get(frozen.guildId);
    if (previous !== undefined) this.keysByHash.delete(previous);
    this.keysByHash.set(frozen.keyHash, frozen);
    this.hashByGuild.set(frozen.guildId, frozen.keyHash);
    return frozen;
  }

  /** Same rule as putKey. */
  putFeeds(generation: number, guildId: string, feeds: FeedRecord[]): readonly FeedRecord[] {
    const frozen = Object.freeze(
      feeds.map((feed) =>
        Object.freeze({ ...feed, tipos: Object.freeze([...feed.tipos]), filtros: Object.freeze([...feed.filtros]) }) as FeedRecord,
      ),
    );
    if (generation !== this.gen) return frozen;
    if (this.feedsByGuild.size >= MAX_ENTRIES) this.clear();
    this.feedsByGuild.set(guildId, frozen);
    return frozen;
  }

  /** After a write to this guild's server, key or feeds (posts included: they move `ultimoPost`). */
  dropGuild(guildId: string): void {
    this.gen++;
    const hash = this.hashByGuild.get(guildId);
    if (hash !== undefined) this.keysByHash.delete(hash);
    this.hashByGuild.delete(guildId);
    this.feedsByGuild.delete(guildId);
  }

  /** After a commit by another connection: anything may have changed. */
  clear(): void {
    this.gen++;
    this.keysByHash.clear();
    this.hashByGuild.clear();
    this.feedsByGuild.clear();
  }
}
