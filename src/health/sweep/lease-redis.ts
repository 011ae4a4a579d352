/** The lease (lease.ts) in Redis: one `SET name owner NX PX ttl`, atomic on the server. */
import { randomUUID } from 'node:crypto';
import { newClient } from '../../keys/redis.js';
import type { SlotLease } from './lease.js';

const PREFIX = 'feedbot:lease:';

export class RedisLease implements SlotLease {
  readonly kind = 'redis';
  private readonly owner = randomUUID();

  private constructor(private readonly client: ReturnType<typeof newClient>) {}

  static async open(url: string): Promise<RedisLease> {
    // Keeps reconnecting after a drop (a claim meanwhile fails and the slot is skipped, not doubled).
    const client = newClient(url, { retryFromStart: true });
    client.on('error', () => undefined);
    await client.connect();
    return new RedisLease(client);
  }

  async claim(name: string, ttlMs: number): Promise<boolean> {
    const answer = await this.client.set(PREFIX + name, this.owner, { NX: true, PX: Math.max(1, Math.round(ttlMs)) });
    return answer === 'OK';
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}
