/**
 * The lease (lease.ts) in Redis: one `SET name owner NX PX ttl`, atomic on the server. Opening
 * does not wait for Redis: the client connects in the background and keeps reconnecting after a
 * drop; meanwhile a claim rejects at once (no offline queue), so a replica whose Redis is down
 * still starts and listens (a sweep slot is then skipped, an interaction answered alone).
 */
import { randomUUID } from 'node:crypto';
import { newClient } from '../keys/redis.js';
import type { SlotLease } from './lease.js';

const PREFIX = 'feedbot:lease:';
/** A claim that has not answered after this is treated as Redis not answering. */
const COMMAND_TIMEOUT_MS = 1_000;

export class RedisLease implements SlotLease {
  readonly kind = 'redis';
  private readonly owner = randomUUID();
  private readonly commands: ReturnType<ReturnType<typeof newClient>['withCommandOptions']>;

  private constructor(
    private readonly client: ReturnType<typeof newClient>,
    private readonly connecting: Promise<unknown>,
  ) {
    this.commands = client.withCommandOptions({ timeout: COMMAND_TIMEOUT_MS });
  }

  /** Resolves at once; `waitForConnection` (tests) waits for the first connection instead. */
  static async open(url: string, opts: { waitForConnection?: boolean } = {}): Promise<RedisLease> {
    const client = newClient(url, { retryFromStart: true });
    client.on('error', () => undefined);
    const connecting = client.connect().catch(() => undefined);
    const lease = new RedisLease(client, connecting);
    if (opts.waitForConnection) await connecting;
    return lease;
  }

  async claim(name: string, ttlMs: number): Promise<boolean> {
    if (!this.client.isReady) throw new Error('Redis is not connected');
    const answer = await this.commands.set(PREFIX + name, this.owner, { NX: true, PX: Math.max(1, Math.round(ttlMs)) });
    return answer === 'OK';
  }

  async close(): Promise<void> {
    // Still connecting (Redis down): nothing to flush, and close() would wait for the connection.
    if (this.client.isReady) await this.client.close().catch(() => this.client.destroy());
    else if (this.client.isOpen) this.client.destroy();
    await this.connecting;
  }
}
