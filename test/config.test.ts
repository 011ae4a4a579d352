import { describe, expect, it } from 'vitest';
import { ConfigError, applicationIdFromToken, loadConfig } from '../src/config.js';

const SECRET = Buffer.alloc(32, 1).toString('base64');
const valid = {
  DISCORD_TOKEN: 'MTIwMDAwMDAwMDAwMDAwMDAwMQ.abc.def',
  FEED_API_URL: 'https://api.example.com/v1/',
  KEY_ENCRYPTION_SECRET: SECRET,
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('accepts a valid environment and fills defaults', () => {
    const c = loadConfig(valid);
    expect(c.FEED_API_URL).toBe('https://api.example.com/v1');
    expect(c.KEY_ENCRYPTION_SECRET).toEqual(Buffer.alloc(32, 1));
    expect(c.DATABASE_URL).toBe('sqlite://./data/feedbot.sqlite');
    expect(c.LOG_LEVEL).toBe('info');
    expect(c.DISCORD_API_URL).toBeUndefined();
  });

  it('names every problem at once', () => {
    const p = problems({ LOG_LEVEL: 'loud', DEV_GUILD_ID: 'abc' });
    expect(p.join('\n')).toMatch(/DISCORD_TOKEN is required/);
    expect(p.join('\n')).toMatch(/FEED_API_URL is required/);
    expect(p.join('\n')).toMatch(/KEY_ENCRYPTION_SECRET is required/);
    expect(p.join('\n')).toMatch(/LOG_LEVEL must be one of/);
    expect(p.join('\n')).toMatch(/DEV_GUILD_ID must be a Discord id/);
    expect(p).toHaveLength(5);
  });

  it('refuses plain http for the feed API, with the reason', () => {
    const p = problems({ ...valid, FEED_API_URL: 'http://api.example.com' });
    expect(p).toEqual([expect.stringMatching(/FEED_API_URL must use https:\/\/.*NODE_EXTRA_CA_CERTS/)]);
  });

  it('refuses a secret of the wrong size without echoing it', () => {
    const short = Buffer.alloc(16, 9).toString('base64');
    const p = problems({ ...valid, KEY_ENCRYPTION_SECRET: short });
    expect(p).toEqual([expect.stringMatching(/32 random bytes in base64/)]);
    expect(p.join()).not.toContain(short);
  });

  it('treats empty values as unset', () => {
    expect(problems({ ...valid, DISCORD_TOKEN: '  ' })).toEqual([expect.stringMatching(/DISCORD_TOKEN is required/)]);
  });

  it('reads the application id from a token', () => {
    expect(applicationIdFromToken(valid.DISCORD_TOKEN)).toBe('1200000000000000001');
    expect(applicationIdFromToken('garbage')).toBeUndefined();
  });
});
