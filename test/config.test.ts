import { describe, expect, it } from 'vitest';
import { ConfigError, applicationIdFromToken, loadConfig, secretsFromEnv, tokenRefusal } from '../src/config.js';

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
    expect(p).toEqual([expect.stringMatching(/FEED_API_URL must use https:\/\/.*FEED_API_CA_FILE/)]);
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

describe('configuration: every problem is one clear start-up message', () => {
  it('a URL without a scheme is a configuration problem, not a crash', () => {
    const p = problems({ ...valid, FEED_API_URL: '127.0.0.1:8443', DISCORD_API_URL: 'localhost:8787' });
    expect(p).toEqual([
      expect.stringMatching(/^FEED_API_URL must start with https:\/\/, e\.g\. https:\/\//),
      expect.stringMatching(/^DISCORD_API_URL must start with https:\/\/ or http:\/\//),
    ]);
  });

  it('refuses other schemes, hosts missing, queries, and never echoes the value (it may hold a password)', () => {
    for (const bad of ['ftp://api.example.com', 'https://', 'https://user:hunter2@api.example.com/v1?x=1']) {
      const p = problems({ ...valid, FEED_API_URL: bad });
      expect(p).toHaveLength(1);
      expect(p[0]).toMatch(/^FEED_API_URL /);
      expect(p[0]).not.toContain('hunter2');
    }
    expect(loadConfig({ ...valid, DISCORD_API_URL: 'http://127.0.0.1:8787/api/' }).DISCORD_API_URL).toBe('http://127.0.0.1:8787/api');
  });

  it('checks the token shape and says where to get a new one', () => {
    for (const bad of ['not-a-token', 'Bot MTIwMDAwMDAwMDAwMDAwMDAwMQ.abc.def', 'abc.def.ghi', 'MTIwMDAwMDAwMDAwMDAwMDAwMQ.abc']) {
      const p = problems({ ...valid, DISCORD_TOKEN: bad });
      expect(p, bad).toEqual([expect.stringMatching(/^DISCORD_TOKEN .*developers\/applications.*Reset Token/)]);
      expect(p[0]).not.toContain(bad);
    }
  });

  it('FEED_API_CA_FILE must be a readable PEM certificate; its content is loaded', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'feedbot-config-'));
    const pem = join(dir, 'ca.pem');
    writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'not.pem'), 'hello');
    expect(loadConfig({ ...valid, FEED_API_CA_FILE: pem }).FEED_API_CA_FILE).toEqual({ path: pem, pem: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(problems({ ...valid, FEED_API_CA_FILE: join(dir, 'missing.pem') })).toEqual([expect.stringMatching(/^FEED_API_CA_FILE cannot be read \(ENOENT\)/)]);
    expect(problems({ ...valid, FEED_API_CA_FILE: join(dir, 'not.pem') })).toEqual([expect.stringMatching(/^FEED_API_CA_FILE holds no PEM certificate/)]);
  });

  it('explains a refused token with the variable to fix', () => {
    expect(tokenRefusal({ status: 401 })).toMatch(/DISCORD_TOKEN.*Reset Token/);
    expect(tokenRefusal({ code: 'TokenInvalid' })).toMatch(/DISCORD_TOKEN/);
    expect(tokenRefusal({ status: 500 })).toBeUndefined();
    expect(tokenRefusal(undefined)).toBeUndefined();
  });
});

describe('secretsFromEnv: the secrets alone, read as loadConfig reads them', () => {
  const current = Buffer.alloc(32, 3);
  const previous = Buffer.alloc(32, 4);

  it('reads the current secret and the previous one, dropping a previous equal to the current', () => {
    const env = { KEY_ENCRYPTION_SECRET: current.toString('base64'), KEY_ENCRYPTION_SECRET_PREVIOUS: ` ${previous.toString('base64')}\n` };
    expect(secretsFromEnv(env)).toEqual({ secret: current, previousSecrets: [previous] });
    expect(secretsFromEnv({ ...env, KEY_ENCRYPTION_SECRET_PREVIOUS: current.toString('base64') }).previousSecrets).toEqual([]);
    expect(secretsFromEnv({ ...env, KEY_ENCRYPTION_SECRET_PREVIOUS: '  ' }).previousSecrets).toEqual([]);
  });

  it.each([
    ['one previous secret', true, { KEY_ENCRYPTION_SECRET_PREVIOUS: previous.toString('base64') }],
    // README.md, docs/OPERATIONS.md and .env.example set one previous secret during a rotation.
    ['a comma-separated list of previous secrets', false, { KEY_ENCRYPTION_SECRET_PREVIOUS: `${previous.toString('base64')},${Buffer.alloc(32, 5).toString('base64')}` }],
    ['a base64url secret', false, { KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 0xfb).toString('base64url') }],
    ['a previous secret of the wrong size', false, { KEY_ENCRYPTION_SECRET_PREVIOUS: Buffer.alloc(16, 4).toString('base64') }],
    ['no secret', false, { KEY_ENCRYPTION_SECRET: '' }],
  ])('%s: accepted (%s) or refused exactly as the bot does at start-up', (_label, accepted, change) => {
    const env = { ...valid, ...change };
    const bot = (() => {
      try {
        const config = loadConfig(env);
        return { secret: config.KEY_ENCRYPTION_SECRET, previousSecrets: config.KEY_ENCRYPTION_SECRET_PREVIOUS ? [config.KEY_ENCRYPTION_SECRET_PREVIOUS] : [] };
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
    })();
    const alone = (() => {
      try {
        return secretsFromEnv(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
    })();
    expect(alone).toEqual(bot);
    expect(Array.isArray(alone)).toBe(!accepted);
  });
});
