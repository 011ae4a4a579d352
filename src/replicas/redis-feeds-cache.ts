/**
 * The per-guild GET /feeds cache shared by every replica through Redis, so an autocomplete box
 * costs one upstream request per refresh, not one per replica its keystrokes land on. The rules
 * are feeds-cache.ts's; how they hold across replicas:
 *
 *  - an entry is one string per guild, `keyHash keyGeneration expiresAt\n<validated JSON>`, with
 *    a PX lifetime (and `expiresAt` on the injected clock, which is what reads compare);
 *  - fills are cancelled by generations instead of flags: a counter per guild and one per key,
 *    INCR'd by invalidations, read when a fill begins and compared, atomically with the write, when
 *    it completes. An entry also dies when its key's generation moved (the key was forgotten).
 *    Counters live an hour, far beyond any fill or entry, so one that expires cancels, never revives;
 *  - a fill takes a lease on its guild; another replica that misses meanwhile polls for that
 *    fill's answer (sharedFill) instead of sending the same request, until the lease ends.
 *
 * When Redis does not answer (redis-link.ts: logged once), reads miss and writes are skipped:
 * every list then comes from the API, still behind the rate gate. (An invalidation lost that way
 * leaves a stale list for at most one entry lifetime, 30 s by default.)
 */
import { randomUUID } from 'node:crypto';
import { FeedListResponseSchema, type FeedListResponse } from '@feedbot/feed-api-contract';
import { ReportingFeedsCache, type PendingFill } from '../api/feeds-cache.js';
import type { SharedCacheOptions } from './shared-state.js';
import { lua, type RedisLink } from './redis-link.js';

/** KEYS entry, lease; ARGV key-generation prefix, wanted key hash or '', now. Returns {json or '', leased}. */
const GET = lua(`
local raw = redis.call('GET', KEYS[1])
local leased = redis.call('EXISTS', KEYS[2])
if not raw then return {'', leased} end
local nl = string.find(raw, '\\n', 1, true)
local keyHash, gen, expires
if nl then keyHash, gen, expires = string.match(string.sub(raw, 1, nl - 1), '^(%S+) (%d+) (%d+)$') end
if not keyHash or tonumber(ARGV[3]) >= tonumber(expires) or (redis.call('GET', ARGV[1] .. keyHash) or '0') ~= gen then
  redis.call('DEL', KEYS[1])
  return {'', leased}
end
if ARGV[2] ~= '' and ARGV[2] ~= keyHash then return {'', leased} end
return {string.sub(raw, nl + 1), leased}
`);

/** KEYS guild generation, key generation, lease; ARGV owner, lease ms (0: none). Returns {guildGen, keyGen, leader}. */
const BEGIN = lua(`
local g = redis.call('GET', KEYS[1]) or '0'
local k = redis.call('GET', KEYS[2]) or '0'
local leader = 1
if tonumber(ARGV[2]) > 0 and not redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('GET', KEYS[3]) ~= ARGV[1] then leader = 0 end
end
return {g, k, leader}
`);

/** KEYS entry, guild generation, key generation, lease; ARGV guildGen, keyGen, payload ('' none), ttl, owner. */
const COMPLETE = lua(`
if redis.call('GET', KEYS[4]) == ARGV[5] then redis.call('DEL', KEYS[4]) end
if ARGV[3] == '' then return 0 end
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] or (redis.call('GET', KEYS[3]) or '0') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1
`);

/** KEYS generation, then entries to drop; ARGV generation lifetime. */
const INVALIDATE = lua(`
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
`);

const GENERATION_TTL_MS = 60 * 60_000;

interface RedisFill extends PendingFill {
  guildGen: string;
  keyGen: string;
  /** This replica holds the guild's lease (or no lease is taken): it sends the request itself. */
  leader: boolean;
}

interface RedisFeedsCacheOptions extends SharedCacheOptions {
  link: RedisLink;
  /** Prefix of every key (several bots on one server). Default `feedbot`. */
  namespace?: string;
  /** How often a replica waiting for another's fill looks again. Default 25. */
  pollMs?: number;
}

export class RedisFeedsCache extends ReportingFeedsCache {
  private readonly link: RedisLink;
  private readonly opts: RedisFeedsCacheOptions;
  private readonly namespace: string;
  /** Names this replica's leases, so its own concurrent fills never wait for each other. */
  private readonly owner = randomUUID();

  constructor(opts: RedisFeedsCacheOptions) {
    super();
    this.link = opts.link;
    this.opts = opts;
    this.namespace = opts.namespace ?? 'feedbot';
  }

  async get(guildId: string, keyHash?: string): Promise<FeedListResponse | undefined> {
    return (await this.read(guildId, keyHash)).value;
  }

  beginFill(guildId: string, keyHash: string): Promise<PendingFill> {
    const k = this.keys(guildId, keyHash);
    const leaseMs = this.opts.ttlMs > 0 ? this.opts.fillLeaseMs : 0;
    return this.link.attempt<RedisFill>(
      async () => {
        const reply = await this.link.run(BEGIN, [k.guildGen, k.keyGen, k.lease], [this.owner, leaseMs]);
        const [guildGen, keyGen, leader] = Array.isArray(reply) ? reply : [];
        if (typeof guildGen !== 'string' || typeof keyGen !== 'string') throw new Error('unexpected reply from the feeds cache script');
        return { guildId, keyHash, guildGen, keyGen, leader: leader !== 0 };
      },
      // Generations that never match: this fill stores nothing.
      () => ({ guildId, keyHash, guildGen: '-1', keyGen: '-1', leader: true }),
    );
  }

  async sharedFill(pending: PendingFill): Promise<FeedListResponse | undefined> {
    const fill = pending as RedisFill;
    if (fill.leader) return undefined;
    const pollMs = this.opts.pollMs ?? 25;
    const deadline = performance.now() + this.opts.fillLeaseMs;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const { value, leased } = await this.read(fill.guildId, fill.keyHash);
      if (value || !leased) return value;
    }
    return undefined;
  }

  async completeFill(pending: PendingFill, value: FeedListResponse | undefined): Promise<void> {
    const fill = pending as RedisFill;
    const k = this.keys(fill.guildId, fill.keyHash);
    const store = value !== undefined && this.opts.ttlMs > 0;
    const payload = store ? `${fill.keyHash} ${fill.keyGen} ${this.opts.now() + this.opts.ttlMs}\n${JSON.stringify(value)}` : '';
    await this.link.attempt(
      () => this.link.run(COMPLETE, [k.entry, k.guildGen, k.keyGen, k.lease], [fill.guildGen, fill.keyGen, payload, this.opts.ttlMs, this.owner]),
      () => undefined,
    );
  }

  async invalidateGuild(guildId: string): Promise<void> {
    const k = this.keys(guildId);
    // The lease goes too: whoever waits for a fill this cancels sends its own request at once.
    await this.link.attempt(
      () => this.link.run(INVALIDATE, [k.guildGen, k.entry, k.lease], [GENERATION_TTL_MS]),
      () => undefined,
    );
  }

  async invalidateKey(keyHash: string): Promise<void> {
    await this.link.attempt(
      () => this.link.run(INVALIDATE, [this.keys('', keyHash).keyGen], [GENERATION_TTL_MS]),
      () => undefined,
    );
  }

  private read(guildId: string, keyHash?: string): Promise<{ value: FeedListResponse | undefined; leased: boolean }> {
    const k = this.keys(guildId);
    return this.link.attempt(
      async () => {
        const reply = await this.link.run(GET, [k.entry, k.lease], [this.keyGenPrefix, keyHash ?? '', this.opts.now()]);
        const [json, leased] = Array.isArray(reply) ? reply : [];
        if (typeof json !== 'string') throw new Error('unexpected reply from the feeds cache script');
        return { value: json === '' ? undefined : parseList(json), leased: leased === 1 };
      },
      () => ({ value: undefined, leased: false }),
    );
  }

  private get keyGenPrefix(): string {
    return `${this.namespace}:feeds-key:`;
  }

  private keys(guildId: string, keyHash = '') {
    const entry = `${this.namespace}:feeds:{${guildId}}`;
    return { entry, guildGen: `${entry}:gen`, lease: `${entry}:fill`, keyGen: `${this.keyGenPrefix}${keyHash}` };
  }
}

/** A stored list is checked again on the way out: another replica's build may have written it. */
function parseList(json: string): FeedListResponse | undefined {
  try {
    const parsed = FeedListResponseSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
