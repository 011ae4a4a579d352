/**
 * Where the open confirmations live when no REDIS_URL is shared (with one, the replicas' Redis
 * holds them: src/replicas/redis-pending.ts): in the key store's database, which every process
 * of the bot shares. Over the gateway, two processes may hold one shard (a deploy overlaps old
 * and new) and the press may be claimed by the process that did not ask the question.
 */
import type { Logger } from '../logger.js';
import type { PendingStore } from '../interactions/pending.js';

interface OpenedPending {
  store: PendingStore;
  close(): Promise<void>;
}

export async function openStorePending(databaseUrl: string, logger: Logger): Promise<OpenedPending> {
  if (/^rediss?:\/\//i.test(databaseUrl)) {
    const [{ RedisLink }, { RedisPendingStore }] = await Promise.all([import('./redis-link.js'), import('./redis-pending.js')]);
    const link = await RedisLink.open(databaseUrl, logger.child({ component: 'confirmations' }));
    return { store: new RedisPendingStore(link), close: () => link.close() };
  }
  const [{ openSqlRunner }, { SqlPendingStore }] = await Promise.all([import('../leases/sql-runner.js'), import('../interactions/pending-sql.js')]);
  const runner = await openSqlRunner(databaseUrl);
  try {
    const store = await SqlPendingStore.open(runner);
    return { store, close: () => store.close() };
  } catch (error) {
    await runner.close();
    throw error;
  }
}
