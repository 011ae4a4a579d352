/**
 * The Redis side of the key store: Keyv on @keyv/redis with the adapter owning the namespace (keys
 * `namespace::guildId`, the adapter's separator; Keyv's own prefix is off, as in @keyv/redis's
 * createKeyv), plus SCAN for listing, a Lua GET-compare-SET for rotation's compare-and-swap, and
 * pub/sub change announcements between bot processes.
 *
 * The client fails fast instead of queueing: no offline queue (a command while disconnected is an
 * error, not a wait), a connect timeout, and throwOnErrors on the adapter (by default it turns a
 * failed read into "no key").
 */
import { createClient } from '@redis/client';
import { Keyv } from 'keyv';
import KeyvRedis from '@keyv/redis';
import type { Logger } from '../logger.js';
import { CHANGES_CHANNEL, changeMessage, decodeEnvelope, encodeEnvelope, parseChangeMessage } from './backend.js';
import type { ChangeListener, KeyBackend, RawEntry } from './backend.js';
import { describeStorageError } from './errors.js';
import { GuildIdSchema } from './schema.js';
import { redactPassword, type StoreLocation } from './store-url.js';
import { within } from '../within.js';

type RedisLocation = Extract<StoreLocation, { kind: 'redis' }>;
type Client = ReturnType<typeof newClient>;

const CONNECT_TIMEOUT_MS = 5_000;
const SEPARATOR = '::';
const COMPARE_AND_SET = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 else return 0 end`;

export class RedisKeyBackend implements KeyBackend {
  readonly kind = 'redis';
  private subscriber: Client | undefined;

  private constructor(
    readonly keyv: Keyv<unknown>,
    private readonly client: Client,
    readonly namespace: string,
    private readonly location: RedisLocation,
    private readonly logger: Logger,
  ) {}

  static async open(location: RedisLocation, namespace: string, logger: Logger): Promise<RedisKeyBackend> {
    const client = newClient(location.url);
    // `as never`: the adapter types its client with RESP 2 or 3; ours is the same class.
    const adapter = new KeyvRedis(client as never, { namespace, keyPrefixSeparator: SEPARATOR, throwOnErrors: true, throwOnConnectError: true });
    const keyv = new Keyv<unknown>({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true });
    keyv.on('error', (error: unknown) => {
      logger.error({ storageError: describe(error, location), namespace }, 'key store: storage error');
    });
    const backend = new RedisKeyBackend(keyv, client, namespace, location, logger);
    // Connect now, so a wrong URL or a server that is down fails open(), once, with one message.
    await within(client.connect(), CONNECT_TIMEOUT_MS, () => {
      throw new Error('Redis did not answer in time');
    }).catch((error: unknown) => {
      // A failed first connection has closed the client already, and destroy() would then throw
      // "The client is closed" in place of the reason (a wrong password and a server that is down
      // both read so).
      if (client.isOpen) client.destroy();
      throw error;
    });
    return backend;
  }

  get where(): string {
    return this.location.where;
  }

  private key(guildId: string): string {
    return `${this.namespace}${SEPARATOR}${guildId}`;
  }

  async listEntries(): Promise<RawEntry[]> {
    const prefix = this.key('');
    const keys: string[] = [];
    // The namespace is [a-z0-9-], so it contains no glob character.
    for await (const batch of this.client.scanIterator({ MATCH: `${prefix}*`, TYPE: 'string', COUNT: 500 })) keys.push(...batch);
    keys.sort();
    const entries: RawEntry[] = [];
    for (let i = 0; i < keys.length; i += 500) {
      const slice = keys.slice(i, i + 500);
      const values = await this.client.mGet(slice);
      for (const [index, key] of slice.entries()) {
        const raw = values[index];
        if (typeof raw !== 'string') continue;
        entries.push({ guildId: key.slice(prefix.length), raw, record: await decodeEnvelope(this.keyv, raw) });
      }
    }
    return entries;
  }

  /**
   * SCAN's batches, each read with MGET (in slices of `size`: COUNT is a hint), in SCAN's order:
   * sorting would need every key at once. Like listEntries, a key SCAN returns twice (it may, while
   * the server resizes its table) is listed twice.
   */
  async *entryPages(size: number): AsyncGenerator<RawEntry[]> {
    const prefix = this.key('');
    for await (const batch of this.client.scanIterator({ MATCH: `${prefix}*`, TYPE: 'string', COUNT: size })) {
      for (let i = 0; i < batch.length; i += size) {
        const slice = batch.slice(i, i + size);
        const values = await this.client.mGet(slice);
        const entries: RawEntry[] = [];
        for (const [index, key] of slice.entries()) {
          const raw = values[index];
          if (typeof raw !== 'string') continue;
          entries.push({ guildId: key.slice(prefix.length), raw, record: await decodeEnvelope(this.keyv, raw) });
        }
        yield entries;
      }
    }
  }

  async readEntry(guildId: string): Promise<RawEntry | undefined> {
    const raw = await this.client.get(this.key(guildId));
    if (typeof raw !== 'string') return undefined;
    return { guildId, raw, record: await decodeEnvelope(this.keyv, raw) };
  }

  async writeRaw(guildId: string, raw: string): Promise<void> {
    GuildIdSchema.parse(guildId);
    await this.client.set(this.key(guildId), raw);
    await this.announce(guildId);
  }

  async replaceIf(guildId: string, expectedRaw: string, record: unknown): Promise<boolean> {
    GuildIdSchema.parse(guildId);
    const raw = await encodeEnvelope(this.keyv, record);
    const swapped = await this.client.eval(COMPARE_AND_SET, { keys: [this.key(guildId)], arguments: [expectedRaw, raw] });
    return swapped === 1;
  }

  async announce(guildId: string): Promise<void> {
    await this.client.publish(CHANGES_CHANNEL, changeMessage(this.namespace, guildId));
  }

  /** SUBSCRIBE on a second connection; every (re)connect reports a reset (messages may have been missed). */
  async watch(listener: ChangeListener): Promise<void> {
    const subscriber = this.client.duplicate();
    this.subscriber = subscriber;
    let connectedOnce = false;
    subscriber.on('error', (error: unknown) => {
      this.logger.warn({ storageError: describe(error, this.location) }, 'key store: change listener lost its connection');
    });
    subscriber.on('ready', () => {
      if (connectedOnce) listener.reset();
      connectedOnce = true;
    });
    await subscriber.connect();
    await subscriber.subscribe(CHANGES_CHANNEL, (message: string) => {
      const guildId = parseChangeMessage(this.namespace, message);
      if (guildId !== undefined) listener.changed(guildId);
    });
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    await Promise.allSettled([subscriber?.isOpen ? subscriber.close() : undefined]);
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
  }
}

/**
 * Reconnects with backoff once it has been connected; the first connection fails on its first error
 * (the key store cannot start without its keys). Also the shared state's client
 * (src/replicas/redis-link.ts), with `retryFromStart`: the same fail-fast commands, but it keeps
 * connecting in the background from the first attempt, since a replica starts without Redis.
 */
export function newClient(url: string, opts: { retryFromStart?: boolean } = {}) {
  let connected = opts.retryFromStart === true;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (attempts: number, cause: Error) => (connected ? Math.min(2 ** attempts * 100, 2_000) : cause),
    },
  });
  client.on('ready', () => {
    connected = true;
  });
  return client;
}

function describe(error: unknown, location: RedisLocation): { code?: string; message: string } {
  const described = describeStorageError(error);
  return { ...described, message: redactPassword(described.message, location.password) };
}
