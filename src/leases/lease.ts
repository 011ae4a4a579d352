/**
 * "This name is mine": one process of several takes a named lease for a while, atomically, in the
 * store they share. The health sweeps take one per (guild, slot), the digest one per (guild, ISO
 * week), the interaction claims one per interaction id and the gateway watchers one per event, so
 * each is done by one process however many hold the same shard or serve the same interactions.
 * A process that dies holds at most what it was working on, until its lease expires.
 *
 * This is a lease, not consensus: a store that loses a write (a Redis fail-over) can let two
 * processes take one name, and then the sweep record's compare-and-swap still posts each change
 * once, and Discord refuses a second answer to an interaction (40060).
 *
 * No job library (BullMQ, pg-boss): each would add a dependency and a second scheduler for what
 * is one atomic claim per name here; docs/ARCHITECTURE.md says more.
 */
export interface SlotLease {
  /** 'memory', 'sqlite', 'redis' or 'postgres'. */
  readonly kind: string;
  /**
   * True when this process now holds `name` for `ttlMs`; false when another one does. Rejects when
   * the store does not answer: each caller decides what that means for its work.
   */
  claim(name: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

interface LeaseConfig {
  databaseUrl: string;
  redisUrl?: string | undefined;
}

/**
 * The lease on the store every process of the bot shares: REDIS_URL's Redis when set, else the
 * key store's own backend (DATABASE_URL): PostgreSQL, Redis, or the SQLite file, which processes
 * on one host share. Over the gateway, two processes may hold the same shard (a deploy that
 * starts the new version before stopping the old, a second copy by mistake), so the gateway
 * needs it as much as HTTP replicas do.
 *
 * Opening never waits for a server that is down: the Redis and PostgreSQL leases connect in the
 * background, and their claims reject until the server answers.
 */
export async function openLease(config: LeaseConfig): Promise<SlotLease> {
  const redisUrl = config.redisUrl ?? (/^rediss?:\/\//i.test(config.databaseUrl) ? config.databaseUrl : undefined);
  if (redisUrl) return (await import('./lease-redis.js')).RedisLease.open(redisUrl);
  if (/^postgres(ql)?:\/\//i.test(config.databaseUrl)) return (await import('./lease-postgres.js')).PostgresLease.open(config.databaseUrl);
  return (await import('./lease-sqlite.js')).SqliteLease.open(config.databaseUrl);
}

/**
 * Whether this process should do the work `name` names, for work whose own write already keeps it
 * from happening twice (a compare-and-swap, an idempotent update): the lease spares the second
 * process its requests. A store that does not answer leaves the decision to that write.
 */
export async function firstToAct(lease: SlotLease | undefined, name: string, ttlMs: number): Promise<boolean> {
  if (!lease) return true;
  try {
    return await lease.claim(name, ttlMs);
  } catch {
    return true;
  }
}
