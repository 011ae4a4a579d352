/**
 * The connection to the Redis server the replicas share (REDIS_URL) for the rate gate and the
 * feeds cache: every operation is one Lua script (atomic on the server), sent by its SHA and
 * bounded by a time-out. The client fails fast, as the key store's does (keys/redis.ts): no
 * offline queue, so a command while disconnected is an error at once, not a wait.
 *
 * Failing open: when Redis does not answer, callers go on with what this process knows (the gate
 * falls back to its in-memory twin, the cache misses and stores nothing). Open confirmations are
 * the exception (redis-pending.ts): another replica asked them, so they ask the user to retry. Failing closed would
 * turn a Redis outage into every command failing in every guild, while the feed API, whose 429
 * stays authoritative (and is still honoured, per replica), is up. The outage is logged once
 * when it starts and once when Redis answers again, never per command.
 */
import { createHash } from 'node:crypto';
import { describeStorageError } from '../../keys/errors.js';
import { newClient } from '../../keys/redis.js';
import { redactPassword } from '../../keys/store-url.js';
import type { Logger } from '../../logger.js';
import { parseRedisUrl, type RedisLocation } from './redis-url.js';

type Client = ReturnType<typeof newClient>;

const CONNECT_TIMEOUT_MS = 5_000;
/** A script that has not answered after this is treated as Redis not answering. */
const COMMAND_TIMEOUT_MS = 1_000;

function withTimeout(client: Client) {
  return client.withCommandOptions({ timeout: COMMAND_TIMEOUT_MS });
}

export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

export function lua(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export class RedisLink {
  private down = false;
  private readonly timed: ReturnType<typeof withTimeout>;

  private constructor(
    private readonly client: Client,
    private readonly location: RedisLocation,
    private readonly logger: Logger,
  ) {
    this.timed = withTimeout(client);
    client.on('error', (error: unknown) => this.failed(error));
  }

  /** Connects now, so a wrong URL or a server that is down fails start-up with one message. */
  static async open(redisUrl: string, logger: Logger): Promise<RedisLink> {
    const location = parseRedisUrl(redisUrl);
    const client = newClient(location.url);
    const link = new RedisLink(client, location, logger);
    try {
      await Promise.race([
        client.connect(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('Redis did not answer in time')), CONNECT_TIMEOUT_MS).unref()),
      ]);
    } catch (error) {
      // A failed first connection has closed the client already (destroy() would throw then).
      if (client.isOpen) client.destroy();
      throw new Error(`REDIS_URL: cannot connect to ${location.where}: ${link.describe(error).message}`);
    }
    link.down = false;
    return link;
  }

  get where(): string {
    return this.location.where;
  }

  /** Runs a script; rejects when Redis does not answer (see `attempt`). */
  async run(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    const options = { keys, arguments: args.map(String) };
    try {
      return await this.timed.evalSha(script.sha, options);
    } catch (error) {
      // The server forgets scripts on restart or SCRIPT FLUSH: send the source once more.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await this.timed.eval(script.source, options);
    }
  }

  /** `work`'s answer, or `fallback`'s when Redis fails it; the first failure of an outage is logged. */
  async attempt<T>(work: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await work();
    } catch (error) {
      this.failed(error);
      return fallback();
    }
    if (this.down) {
      this.down = false;
      this.logger.info({ where: this.where }, 'shared state: Redis answers again; replicas share the rate gate, the feeds cache and confirmations again');
    }
    return value;
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
  }

  private failed(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn(
      { where: this.where, storageError: this.describe(error) },
      'shared state: Redis does not answer; until it does, this replica gates requests and caches lists on its own, and confirmations ask users to try again',
    );
  }

  private describe(error: unknown): { code?: string; message: string } {
    const described = describeStorageError(error);
    return { ...described, message: redactPassword(described.message, this.location.password) };
  }
}
