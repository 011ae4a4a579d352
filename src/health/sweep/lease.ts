/**
 * "This slot is mine": one process of several takes a named lease for a while, atomically, in the
 * store they share. The sweeps take one per (guild, slot) and the digest one per (guild, ISO
 * week), so on HTTP replicas each is done by one replica; a replica that dies holds at most the
 * slot it was working on. This is a lease, not consensus: a store that loses a write (a Redis
 * fail-over) can let two replicas sweep the same slot, and then the sweep record's
 * compare-and-swap (store.ts) still posts each change once.
 *
 * No job library (BullMQ, pg-boss): each would add a dependency and a second scheduler for what
 * is one atomic claim per slot here; docs/ARCHITECTURE.md says more.
 */
export interface SlotLease {
  /** 'memory', 'redis' or 'postgres'. */
  readonly kind: string;
  /** True when this process now holds `name` for `ttlMs`; false when another one does. */
  claim(name: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** One process (the gateway owner of a shard, or SQLite alone): nothing to share. */
export class MemoryLease implements SlotLease {
  readonly kind = 'memory';
  private readonly held = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  claim(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    if ((this.held.get(name) ?? -Infinity) > now) return Promise.resolve(false);
    // Names carry their slot, so expired ones are never asked again: forget them as we go.
    if (this.held.size > 10_000) for (const [n, until] of this.held) if (until <= now) this.held.delete(n);
    this.held.set(name, now + ttlMs);
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

export interface LeaseConfig {
  transport: 'gateway' | 'http';
  databaseUrl: string;
  redisUrl?: string | undefined;
}

/**
 * Over the gateway each process sweeps the guilds of its own shards: no coordination. HTTP
 * replicas share REDIS_URL's Redis, or the key store's PostgreSQL or Redis; with SQLite alone
 * there is one process.
 */
export async function openLease(config: LeaseConfig): Promise<SlotLease> {
  if (config.transport === 'gateway') return new MemoryLease();
  const redisUrl = config.redisUrl ?? (/^rediss?:\/\//i.test(config.databaseUrl) ? config.databaseUrl : undefined);
  if (redisUrl) return (await import('./lease-redis.js')).RedisLease.open(redisUrl);
  if (/^postgres(ql)?:\/\//i.test(config.databaseUrl)) return (await import('./lease-postgres.js')).PostgresLease.open(config.databaseUrl);
  return new MemoryLease();
}
