/**
 * Open confirmations shared by the replicas (REDIS_URL): the question is answered by one replica,
 * the press may reach another. Each value is one key expiring with its confirmation; a take is
 * one GET and DEL in a script (atomic on the server), so a confirmation is answered once
 * whichever replicas the presses reach; a claim is SET NX PX with its owner, released only by
 * that owner.
 *
 * Failing: unlike the rate gate and the feeds cache, there is nothing this replica knows that
 * could stand in for the shared answer (another replica asked the question). When Redis does not
 * answer, the operation fails with a user error saying to try again (nothing was changed); the
 * outage is logged once by the link.
 */
import { ConfirmationsUnavailableError, type PendingStore } from '../interactions/pending.js';
import { lua, type RedisLink } from './redis-link.js';

const PUT = lua(`redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`);
// GETDEL needs Redis 6.2; the script does the same on any version.
const TAKE = lua(`local value = redis.call('GET', KEYS[1]) if value then redis.call('DEL', KEYS[1]) end return value`);
const CLAIM = lua(`return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0`);
// Every value and hold of one guild (`<ns>:confirm:<kind>:<guild>:<asked>`): SCAN inside the
// script, which a single server (redis-state.ts: not a Cluster) allows; a guild has a handful.
const FORGET_GUILD = lua(`
local dropped = 0
for _, pattern in ipairs(ARGV) do
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = page[1]
    for _, key in ipairs(page[2]) do dropped = dropped + redis.call('DEL', key) end
  until cursor == '0'
end
return dropped`);
const RELEASE = lua(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

export class RedisPendingStore implements PendingStore {
  constructor(
    private readonly link: RedisLink,
    private readonly namespace = 'feedbot',
  ) {}

  async put(key: string, json: string, ttlMs: number): Promise<void> {
    await this.shared(() => this.link.run(PUT, [this.valueKey(key)], [json, Math.max(1, Math.ceil(ttlMs))]));
  }

  async take(key: string): Promise<string | undefined> {
    const value = await this.shared(() => this.link.run(TAKE, [this.valueKey(key)], []));
    return typeof value === 'string' ? value : undefined;
  }

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.shared(() => this.link.run(CLAIM, [this.claimKey(key)], [owner, Math.max(1, Math.ceil(ttlMs))]))) === 1;
  }

  async release(key: string, owner: string): Promise<void> {
    await this.shared(() => this.link.run(RELEASE, [this.claimKey(key)], [owner]));
  }

  async forgetGuild(guildId: string): Promise<number> {
    if (!/^\d{1,32}$/.test(guildId)) throw new TypeError('guild id must be a Discord snowflake');
    const patterns = [`${this.namespace}:confirm:*:${guildId}:*`, `${this.namespace}:confirm-claim:*:${guildId}:*`];
    return Number(await this.shared(() => this.link.run(FORGET_GUILD, [], patterns)));
  }

  private shared<T>(work: () => Promise<T>): Promise<T> {
    return this.link.attempt(work, () => {
      throw new ConfirmationsUnavailableError();
    });
  }

  private valueKey(key: string): string {
    return `${this.namespace}:confirm:${key}`;
  }

  private claimKey(key: string): string {
    return `${this.namespace}:confirm-claim:${key}`;
  }
}
