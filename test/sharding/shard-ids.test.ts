import { describe, expect, it } from 'vitest';
import { shardOptions } from '../../src/bot/discord-client.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { formatShardIds, identifyWaves, parseShardIds, shardOfGuild } from '../../src/shard-ids.js';

const BASE = {
  DISCORD_TOKEN: 'MTIwMDAwMDAwMDAwMDAwMDAwMQ.aaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbb',
  FEED_API_URL: 'https://api.example.com/v1',
  KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 7).toString('base64'),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...BASE, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('SHARD_IDS lists', () => {
  it.each([
    ['0-3', [0, 1, 2, 3]],
    ['0,2,5', [0, 2, 5]],
    ['8-11, 0-3', [0, 1, 2, 3, 8, 9, 10, 11]],
    ['3,3,2-3', [2, 3]],
    ['7', [7]],
  ])('%s → %j', (text, ids) => {
    expect(parseShardIds(text)).toEqual(ids);
  });

  it.each(['', '0-', '-3', '3-1', 'a', '0..3', '1,,2', '0-70000'])('refuses %j', (text) => {
    expect(() => parseShardIds(text)).toThrow();
  });

  it('formats back to the compact form', () => {
    expect(formatShardIds([8, 0, 1, 2, 3, 10, 11])).toBe('0-3,8,10-11');
    expect(formatShardIds([5])).toBe('5');
  });

  it('computes the shard of a guild as Discord does', () => {
    // (id >> 22) % count, with the timestamp part of generated ids counting up by one.
    const id = ((200_000_000_001n << 22n) | 5n).toString();
    expect(shardOfGuild(id, 4)).toBe(Number(200_000_000_001n % 4n));
  });

  it('groups identifies into waves of distinct max_concurrency buckets', () => {
    expect(identifyWaves([0, 1, 2, 3], 16)).toEqual([[0, 1, 2, 3]]);
    expect(identifyWaves([0, 1, 2, 3], 1)).toEqual([[0], [1], [2], [3]]);
    expect(identifyWaves([4, 5, 6, 7, 8], 4)).toEqual([[4, 5, 6, 7], [8]]);
  });
});

describe('sharding configuration', () => {
  it('accepts a range of a count, and a count alone', () => {
    expect(loadConfig({ ...BASE, SHARD_COUNT: '16', SHARD_IDS: '4-7' })).toMatchObject({ SHARD_COUNT: 16, SHARD_IDS: [4, 5, 6, 7] });
    expect(loadConfig({ ...BASE, SHARD_COUNT: '2' }).SHARD_IDS).toBeUndefined();
  });

  it('refuses SHARD_IDS without SHARD_COUNT, ids past the count, and bad counts', () => {
    expect(problems({ SHARD_IDS: '0-3' })).toEqual([expect.stringMatching(/^SHARD_IDS needs SHARD_COUNT/)]);
    expect(problems({ SHARD_IDS: '0-3', SHARD_COUNT: '2' })).toEqual([expect.stringMatching(/^SHARD_IDS has shard 2, but shards are numbered 0 to 1/)]);
    expect(problems({ SHARD_COUNT: '0' })).toEqual([expect.stringMatching(/^SHARD_COUNT must be a whole number/)]);
    expect(problems({ SHARD_COUNT: '4', SHARD_IDS: '1-x' })).toEqual([expect.stringMatching(/^SHARD_IDS: .*write ids and ranges like 0-3/)]);
  });

  it('gives the discord.js client its shards', () => {
    expect(shardOptions({}, {})).toEqual({ shards: 'auto' });
    expect(shardOptions({ count: 16, ids: [4, 5] }, {})).toEqual({ shards: [4, 5], shardCount: 16 });
    expect(shardOptions({ count: 2 }, {})).toEqual({ shards: [0, 1], shardCount: 2 });
    // Under the ShardingManager, discord.js reads SHARDS and SHARD_COUNT itself.
    expect(shardOptions({ count: 16, ids: [4, 5] }, { SHARDING_MANAGER: 'true', SHARDS: '5' })).toEqual({});
  });
});
