/**
 * Discord snowflakes and tokens.
 *
 * Ids must look real: @discordjs/rest buckets rate limits by matching 17–19 digit ids in the
 * route, and sharding derives the shard from the id's timestamp bits.
 */
import { randomBytes } from 'node:crypto';

export const DISCORD_EPOCH = 1_420_070_400_000n;

let lastMs = 0n;
let increment = 0n;

/** A fresh snowflake for "now"; unique within this process. */
export function snowflake(at: number = Date.now()): string {
  const ms = BigInt(at) - DISCORD_EPOCH;
  if (ms === lastMs) {
    increment = (increment + 1n) & 0xfffn;
  } else {
    lastMs = ms;
    increment = 0n;
  }
  // worker 1, process 1: keeps our ids distinguishable from hand-written fixtures (worker 0).
  return ((ms << 22n) | (1n << 17n) | (1n << 12n) | increment).toString();
}

/** A deterministic snowflake: `ms` after the Discord epoch, with a low-bits discriminator. */
export function fixedSnowflake(msSinceEpoch: number, low = 0): string {
  return ((BigInt(msSinceEpoch) << 22n) | BigInt(low & 0x3fffff)).toString();
}

export function snowflakeTimestamp(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

/** Discord's documented sharding formula: `shard_id = (guild_id >> 22) % num_shards`. */
export function shardForGuild(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^\d{15,21}$/.test(value);
}

/** An interaction token shaped like Discord's (base64 of `interaction:<id>:<secret>`). */
export function interactionToken(interactionId: string): string {
  const secret = randomBytes(48).toString('base64url');
  return Buffer.from(`interaction:${interactionId}:${secret}`).toString('base64url');
}

/** A bot token shaped like Discord's `<base64 user id>.<timestamp>.<hmac>`, for fixtures. */
export function makeBotToken(applicationId: string): string {
  const id = Buffer.from(applicationId).toString('base64url');
  const ts = randomBytes(4).toString('base64url').slice(0, 6);
  return `${id}.${ts}.${randomBytes(27).toString('base64url')}`;
}

export function sessionId(): string {
  return randomBytes(16).toString('hex');
}
