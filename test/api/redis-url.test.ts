/**
 * REDIS_URL: read like a Redis DATABASE_URL (scheme, host, database index), refused with a message
 * naming REDIS_URL and never quoting the URL, which may carry a password.
 */
import { describe, expect, it } from 'vitest';
import { parseRedisUrl } from '../../src/keys/redis-url.js';
import { ConfigFields, loadConfig } from '../../src/config.js';

const valid = {
  DISCORD_TOKEN: 'MTIwMDAwMDAwMDAwMDAwMDAwMQ.abc.def',
  FEED_API_URL: 'https://api.example.com/v1/',
  KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 1).toString('base64'),
};

/** The messages REDIS_URL's check gives `url`. */
function problems(url: string): string[] {
  const parsed = ConfigFields.shape.REDIS_URL.safeParse(url);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
}

describe('REDIS_URL', () => {
  it('is optional: unset (or empty), each process keeps its own gate and cache', () => {
    expect(loadConfig(valid).REDIS_URL).toBeUndefined();
    expect(loadConfig({ ...valid, REDIS_URL: ' ' }).REDIS_URL).toBeUndefined();
  });

  it('takes redis:// and rediss:// URLs with an optional database index', () => {
    expect(loadConfig({ ...valid, REDIS_URL: 'rediss://:pw@cache.internal:6380/2 ' }).REDIS_URL).toBe('rediss://:pw@cache.internal:6380/2');
    expect(parseRedisUrl('redis://:s3cr%40t@127.0.0.1:6379')).toMatchObject({ kind: 'redis', where: 'redis://127.0.0.1:6379/0', password: 's3cr@t', database: 0 });
  });

  it('refuses other schemes, hosts-less URLs and bad indexes, naming REDIS_URL and never the password', () => {
    const cases: Array<[string, RegExp]> = [
      ['postgres://u:hunter2pw@db:5432/x', /^REDIS_URL must start with redis:\/\/ or rediss:\/\//],
      ['cache.internal:6379', /^REDIS_URL must start with redis:\/\//],
      ['redis://:hunter2pw@/0', /^REDIS_URL is not a valid redis URL/],
      ['redis:///0', /^REDIS_URL \(redis\) names no host/],
      ['redis://:hunter2pw@cache/db', /^REDIS_URL \(redis\) database must be an index number/],
    ];
    for (const [url, message] of cases) {
      const p = problems(url);
      expect(p, url).toHaveLength(1);
      expect(p[0], url).toMatch(message);
      expect(p[0], url).not.toContain('hunter2pw');
    }
  });
});
