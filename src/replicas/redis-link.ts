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
import { describeStorageError } from '../keys/errors.js';
import { newClient } from '../keys/redis.js';
import { redactPassword } from '../keys/store-url.js';
import type { Logger } from '../logger.js';
import { parseRedisUrl, type RedisLocation } from '../keys/redis-url.js';

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
  /** During open(): the outage line says the replica starts without Redis. */
  private starting = false;
  private readonly timed: ReturnType<typeof withTimeout>;

  private constructor(
    private readonly client: Client,
    private readonly location: RedisLocation,
    private readonly logger: Logger,
  ) {
    this.timed = withTimeout(client);
    client.on('error', (error: unknown) => this.failed(error));
    // A (re)connection after an outage, or after starting without Redis: share again at once.
    client.on('ready', () => this.answered());
  }

  /**
   * Starts connecting, and resolves once Redis answers, fails once, or CONNECT_TIMEOUT_MS passed:
   * never rejects for an unreachable server or a refused password. The README's promise, "Redis
   * down: each replica carries on alone", holds at start-up too: a replica that crashed here would
   * crash-loop for as long as Redis is down. The client keeps connecting in the background (with
   * backoff, one warn line for the whole outage) and the replicas share again once it is up.
   * A REDIS_URL that cannot be parsed still throws: that is a mistake to fix, not an outage.
   */
  static async open(redisUrl: string, logger: Logger): Promise<RedisLink> {
    const location = parseRedisUrl(redisUrl);
    const client = newClient(location.url, { retryFromStart: true });
    const link = new RedisLink(client, location, logger);
    link.starting = true;
    let timer: NodeJS.Timeout | undefined;
    const settled = new Promise<void>((resolve) => {
      client.once('ready', resolve);
      client.once('error', () => resolve());
      timer = setTimeout(resolve, CONNECT_TIMEOUT_MS);
    });
    // Pending until connected (or closed): the strategy never gives up, so nothing to report here.
    client.connect().catch(() => undefined);
    await settled;
    clearTimeout(timer);
    link.starting = false;
    if (!client.isReady && !link.down) link.failed(new Error('Redis did not answer in time'));
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
    this.answered();
    return value;
  }

  async close(): Promise<void> {
    // Still connecting (Redis down): nothing to flush, and close() would wait for the connection.
    if (this.client.isReady) await this.client.close().catch(() => this.client.destroy());
    else if (this.client.isOpen) this.client.destroy();
  }

  private answered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info({ where: this.where }, 'shared state: Redis answers again; replicas share the rate gate, the feeds cache and confirmations again');
  }

  private failed(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn(
      { where: this.where, storageError: this.describe(error) },
      this.starting
        ? 'shared state: Redis does not answer at start-up; this replica starts alone (it gates requests and caches lists on its own, and confirmations ask users to try again) and keeps connecting in the background'
        : 'shared state: Redis does not answer; until it does, this replica gates requests and caches lists on its own, and confirmations ask users to try again; it keeps reconnecting in the background',
    );
  }

  private describe(error: unknown): { code?: string; message: string } {
    const described = describeStorageError(error);
    return { ...described, message: redactPassword(described.message, this.location.password) };
  }
}
