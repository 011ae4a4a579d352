/**
 * The operator's side of the sandbox (what the real service's dashboard does): servers and plans,
 * keys with scopes, pausing feeds, adding posts. Used in-process by tests and the demo, and by the
 * admin CLI over the same data folder.
 */
import { z } from 'zod';
import {
  ContentKindSchema,
  CreateFeedRequestSchema,
  ScopeSchema,
  SnowflakeSchema,
  TimestampSchema,
  type CreateFeedRequest,
  type FeedState,
  type Scope,
} from '@feedbot/feed-api-contract';
import { randomInt as cryptoRandomInt } from 'node:crypto';
import { seededRandom, type Clock } from './clock.js';
import { caption, postCode } from './content.js';
import { API_KEY_PATTERN, generateApiKey, hashApiKey, maskApiKey } from './keys.js';
import type { Simulator, TickOptions } from './simulator.js';
import { PLANS, type FeedRecord, type KeyRecord, type Plan, type PostRecord, type ServerRecord } from './records.js';
import type { SandboxStore } from './store.js';

export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

export const PlanSchema = z.enum(PLANS);
const ScopesSchema = z.array(ScopeSchema).transform((scopes) => [...new Set(scopes)]);
const FeedIdArg = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** How long ago a quiet feed's latest post was (admin `feed:quiet`). */
const QuietDaysArg = z.coerce.number().min(0).max(3650);
const RateLimitArg = z.number().int().positive().max(1_000_000_000).nullable();
const KeyArg = z.string().regex(API_KEY_PATTERN, 'must be fbk_ followed by 40 letters or digits');

const NewPostSchema = z.object({
  tipo: ContentKindSchema.optional(),
  caption: z.string().max(2200).optional(),
  publicadoEn: TimestampSchema.optional(),
  publicadoDiscord: TimestampSchema.optional(),
  code: z.string().regex(/^[0-9A-Za-z]{11}$/).optional(),
});
export type NewPost = z.input<typeof NewPostSchema>;

export const DEFAULT_MAX_FEEDS_PER_SERVER = 50;

export interface KeyDescription extends KeyRecord {
  masked: string;
}

export interface GenerateKeyOptions {
  /** Requests per window for this key only (e.g. a benchmark key); default: the sandbox limit. */
  rateLimit?: number | null;
  /** This key instead of a random one (reproducible documentation screenshots); a real server never chooses its key. */
  key?: string;
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new AdminError(`${what}: ${result.error.issues.map((i) => i.message).join('; ')}`);
  return result.data;
}

export class SandboxAdmin {
  private readonly random = seededRandom(0xad417);

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: Clock,
    private readonly simulator: Simulator,
    private readonly maxFeedsPerServer = DEFAULT_MAX_FEEDS_PER_SERVER,
  ) {}

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  private async requireServer(guildId: string): Promise<ServerRecord> {
    const id = parse(SnowflakeSchema, guildId, 'guild id');
    const server = await this.store.getServer(id);
    if (!server) throw new AdminError(`no server ${id}: create it first`);
    return server;
  }

  // ─── Servers ────────────────────────────────────────────────────────────────────────────────

  /** Creates the server, or sets the plan of an existing one. */
  async createServer(guildId: string, plan: Plan = 'server'): Promise<ServerRecord> {
    const id = parse(SnowflakeSchema, guildId, 'guild id');
    const validPlan = parse(PlanSchema, plan, 'plan');
    if (!(await this.store.createServer(id, validPlan, this.nowIso()))) await this.store.setPlan(id, validPlan);
    return this.requireServer(id);
  }

  async setPlan(guildId: string, plan: Plan): Promise<ServerRecord> {
    const server = await this.requireServer(guildId);
    await this.store.setPlan(server.guildId, parse(PlanSchema, plan, 'plan'));
    return this.requireServer(server.guildId);
  }

  getServer(guildId: string): Promise<ServerRecord | undefined> {
    return this.store.getServer(parse(SnowflakeSchema, guildId, 'guild id'));
  }

  listServers(): Promise<ServerRecord[]> {
    return this.store.listServers();
  }

  // ─── Keys ───────────────────────────────────────────────────────────────────────────────────

  /**
   * Generates the server's key (replacing, and so invalidating, any previous one) and returns the
   * plaintext: the only time it exists outside the caller. Keys may be made for any plan; the API
   * answers 403 plan_required for servers not on `server`.
   */
  async generateKey(guildId: string, scopes: readonly Scope[], options: GenerateKeyOptions = {}): Promise<string> {
    const server = await this.requireServer(guildId);
    const validScopes = parse(ScopesSchema, scopes, 'scopes');
    const rateLimit = parse(RateLimitArg, options.rateLimit ?? null, 'rate limit');
    const key = options.key === undefined ? generateApiKey() : parse(KeyArg, options.key, 'key');
    await this.store.saveKey(server.guildId, hashApiKey(key), key.slice(-4), validScopes, rateLimit, this.nowIso());
    return key;
  }

  /** What the dashboard shows of a key: masked, with its scopes. */
  async describeKey(guildId: string): Promise<KeyDescription | undefined> {
    const server = await this.requireServer(guildId);
    const key = await this.store.getKey(server.guildId);
    return key && { ...key, masked: maskApiKey(key.last4) };
  }

  /**
   * A new server with a random guild id and a key with these scopes: one key per server, so tests
   * that need several keys at once (one per scope set) use one server each.
   */
  async createScratchServer(
    scopes: readonly Scope[],
    options: GenerateKeyOptions & { plan?: Plan } = {},
  ): Promise<{ guildId: string; key: string }> {
    for (;;) {
      const guildId = `9${String(cryptoRandomInt(1e9)).padStart(9, '0')}${String(cryptoRandomInt(1e9)).padStart(9, '0')}`;
      if (await this.store.createServer(guildId, parse(PlanSchema, options.plan ?? 'server', 'plan'), this.nowIso())) {
        return { guildId, key: await this.generateKey(guildId, scopes, options) };
      }
    }
  }

  async revokeKey(guildId: string): Promise<boolean> {
    const server = await this.requireServer(guildId);
    return this.store.deleteKey(server.guildId);
  }

  // ─── Feeds ──────────────────────────────────────────────────────────────────────────────────

  async listFeeds(guildId: string): Promise<FeedRecord[]> {
    const server = await this.requireServer(guildId);
    return this.store.listFeeds(server.guildId);
  }

  /** Same rules as POST /feeds (validation, duplicates, per-server maximum). */
  async createFeed(guildId: string, input: CreateFeedRequest): Promise<FeedRecord> {
    const server = await this.requireServer(guildId);
    const feed = parse(CreateFeedRequestSchema, input, 'feed');
    const result = await this.store.createFeed(server.guildId, { ...feed, creado: this.nowIso() }, this.maxFeedsPerServer);
    if (result.kind === 'created') return result.feed;
    if (result.kind === 'duplicate') throw new AdminError(`a feed of @${feed.cuenta} to channel ${feed.canalId} already exists`);
    throw new AdminError(`server ${server.guildId} already has ${this.maxFeedsPerServer} feeds`);
  }

  pauseFeed(guildId: string, feedId: number | string): Promise<FeedRecord> {
    return this.setFeedState(guildId, feedId, 'pausado');
  }

  resumeFeed(guildId: string, feedId: number | string): Promise<FeedRecord> {
    return this.setFeedState(guildId, feedId, 'activo');
  }

  private async setFeedState(guildId: string, feedId: number | string, estado: FeedState): Promise<FeedRecord> {
    const server = await this.requireServer(guildId);
    const id = parse(FeedIdArg, feedId, 'feed id');
    if (!(await this.store.setFeedState(server.guildId, id, estado))) {
      throw new AdminError(`server ${server.guildId} has no feed ${id}`);
    }
    const feed = await this.store.getFeed(server.guildId, id);
    if (!feed) throw new AdminError(`server ${server.guildId} has no feed ${id}`);
    return feed;
  }

  /**
   * Makes the feed quiet: its latest post (`ultimoPost`) becomes `days` days ago, every older post
   * moved back with it; a feed without posts gets one then. The state is left as it is.
   */
  async quietFeed(guildId: string, feedId: number | string, days: number): Promise<FeedRecord> {
    const server = await this.requireServer(guildId);
    const id = parse(FeedIdArg, feedId, 'feed id');
    const ago = parse(QuietDaysArg, days, 'days');
    const feed = await this.store.getFeed(server.guildId, id);
    if (!feed) throw new AdminError(`server ${server.guildId} has no feed ${id}`);
    const latest = new Date(this.clock.now() - ago * 86_400_000).toISOString();
    if ((await this.store.shiftPosts(server.guildId, id, latest)) === 0) await this.addPost(server.guildId, id, { publicadoDiscord: latest });
    const quiet = await this.store.getFeed(server.guildId, id);
    if (!quiet) throw new AdminError(`server ${server.guildId} has no feed ${id}`);
    return quiet;
  }

  // ─── Posts ──────────────────────────────────────────────────────────────────────────────────

  /** Records a forwarded post (defaults: a kind the feed forwards, a generated caption, now). */
  async addPost(guildId: string, feedId: number | string, input: NewPost = {}): Promise<PostRecord> {
    const server = await this.requireServer(guildId);
    const id = parse(FeedIdArg, feedId, 'feed id');
    const post = parse(NewPostSchema, input, 'post');
    const feed = await this.store.getFeed(server.guildId, id);
    if (!feed) throw new AdminError(`server ${server.guildId} has no feed ${id}`);
    const tipo = post.tipo ?? feed.tipos[0] ?? 'post';
    const publicadoDiscord = post.publicadoDiscord ?? this.nowIso();
    const record: PostRecord = {
      code: post.code ?? postCode(),
      feedId: feed.id,
      guildId: feed.guildId,
      cuenta: feed.cuenta,
      tipo,
      caption: post.caption ?? caption(this.random, feed.cuenta, tipo),
      publicadoEn: post.publicadoEn ?? publicadoDiscord,
      publicadoDiscord,
    };
    await this.store.insertPost(record);
    return record;
  }

  /** One simulator round now (also what the CLI's `simulate` runs). */
  simulateTick(options: TickOptions = {}): Promise<PostRecord[]> {
    return this.simulator.tick(options);
  }
}
