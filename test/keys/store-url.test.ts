/** DATABASE_URL → backend: every scheme, and no message ever quoting a password. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ensureDatabaseFile, parseDatabaseUrl } from '../../src/keys/database-url.js';
import { parseStoreUrl, redactPassword } from '../../src/keys/store-url.js';

describe('parseStoreUrl', () => {
  test('sqlite stays the default and keeps its paths', () => {
    expect(parseStoreUrl('sqlite://./data/feedbot.sqlite', '/srv/bot')).toMatchObject({ kind: 'sqlite', file: '/srv/bot/data/feedbot.sqlite' });
    expect(parseStoreUrl('data/x.sqlite', '/srv/bot')).toMatchObject({ kind: 'sqlite', file: '/srv/bot/data/x.sqlite' });
  });

  test('postgres and redis URLs name where, without the password', () => {
    expect(parseStoreUrl('postgres://bot:hunter2@db.internal:5433/feedbot')).toMatchObject({
      kind: 'postgres',
      where: 'postgres://db.internal:5433/feedbot',
      password: 'hunter2',
    });
    expect(parseStoreUrl('postgresql://bot@db/feedbot')).toMatchObject({ kind: 'postgres', password: undefined });
    expect(parseStoreUrl('redis://:hunter2@cache:6380/4')).toMatchObject({ kind: 'redis', where: 'redis://cache:6380/4', database: 4 });
    expect(parseStoreUrl('rediss://cache')).toMatchObject({ kind: 'redis', where: 'rediss://cache/0', database: 0 });
  });

  test.each([
    ['postgres://bot:hunter2@db', /names no database/],
    ['postgres://bot:hunter2@:5432/x', /not a valid postgres URL|names no host/],
    ['redis://:hunter2@cache/feedbot', /index number/],
    ['redis://:hunter2@cache:notaport/1', /not a valid redis URL/],
    ['mysql://bot:hunter2@db/feedbot', /"mysql" is not supported/],
  ])('refuses %s without echoing it', (url, message) => {
    let error: unknown;
    try {
      parseStoreUrl(url);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('hunter2');
    expect((error as Error).message).not.toContain('bot');
  });

  test('a bad % escape in the password says how to write it, not "URI malformed"', () => {
    for (const url of ['postgres://bot:hunt%ZZer2@db/feedbot', 'redis://:hunt%er2@cache:6379/1']) {
      const message = (() => {
        try {
          parseStoreUrl(url);
        } catch (error) {
          return (error as Error).message;
        }
        return 'accepted';
      })();
      expect(message).toMatch(/^DATABASE_URL \((postgres|redis)\) password has a malformed % escape/);
      expect(message).toContain('%25');
      expect(message).not.toContain('URI malformed');
      expect(message).not.toContain('hunt');
    }
  });

  test.each(['redis//localhost', 'postgres:/db.internal/feedbot', 'postgresql//bot:hunter2@db/feedbot', 'sqlite:data/x.sqlite', 'rediss:cache'])(
    'refuses %s as a mistyped URL instead of making it a SQLite path',
    (url) => {
      expect(() => parseStoreUrl(url, '/srv/bot')).toThrow(/looks like a mistyped URL/);
      expect(() => parseStoreUrl(url, '/srv/bot')).not.toThrow(/hunter2/);
    },
  );

  test('an unsupported scheme names all three that are', () => {
    expect(() => parseStoreUrl('mysql://bot:hunter2@db/feedbot')).toThrow(/sqlite:\/\/.*postgres:\/\/.*redis:\/\//);
  });

  test('plain paths that only resemble a scheme stay SQLite paths', () => {
    expect(parseStoreUrl('./redis/localhost', '/srv/bot')).toMatchObject({ kind: 'sqlite', file: '/srv/bot/redis/localhost' });
    expect(parseStoreUrl('data/postgres.sqlite', '/srv/bot')).toMatchObject({ kind: 'sqlite', file: '/srv/bot/data/postgres.sqlite' });
  });

  test('creates missing folders under the working folder only; outside it, refuses and creates nothing', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'feedbot-cwd-'));
    const outside = await mkdtemp(path.join(tmpdir(), 'feedbot-outside-'));
    try {
      await ensureDatabaseFile(parseDatabaseUrl('sqlite://./data/deeper/feedbot.sqlite', cwd), cwd);
      expect(existsSync(path.join(cwd, 'data', 'deeper', 'feedbot.sqlite'))).toBe(true);

      const far = path.join(outside, 'nonexistent', 'dir', 'x.sqlite');
      await expect(ensureDatabaseFile(parseDatabaseUrl(`sqlite://${far}`, cwd), cwd)).rejects.toThrow(
        `DATABASE_URL: the folder ${path.dirname(far)} does not exist`,
      );
      expect(existsSync(path.join(outside, 'nonexistent'))).toBe(false);
      // An existing folder outside is fine: only creating folders there is refused.
      await ensureDatabaseFile(parseDatabaseUrl(`sqlite://${path.join(outside, 'x.sqlite')}`, cwd), cwd);
      expect(existsSync(path.join(outside, 'x.sqlite'))).toBe(true);
    } finally {
      await rm(cwd, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });

  test('redactPassword hides plain and URL-encoded forms', () => {
    expect(redactPassword('auth p@ss and p%40ss failed', 'p@ss')).toBe('auth *** and *** failed');
    expect(redactPassword('nothing', undefined)).toBe('nothing');
  });
});

describe('DATABASE_URL in the configuration', () => {
  const base = {
    DISCORD_TOKEN: `${Buffer.from('123456789012345678').toString('base64')}.abcdef.${'x'.repeat(27)}`,
    FEED_API_URL: 'https://api.example.com/v1',
    KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 1).toString('base64'),
  };

  test('accepts every backend', () => {
    for (const url of ['sqlite://./x.sqlite', 'postgres://u:p@h/db', 'redis://:p@h:6379/2', 'rediss://h']) {
      expect(loadConfig({ ...base, DATABASE_URL: url }).DATABASE_URL).toBe(url);
    }
  });

  test('a bad server URL is one start-up message without the password', () => {
    expect(() => loadConfig({ ...base, DATABASE_URL: 'postgres://bot:hunter2@db' })).toThrow(/DATABASE_URL \(postgres\) names no database/);
    expect(() => loadConfig({ ...base, DATABASE_URL: 'redis://:hunter2@cache/x' })).toThrow(/^(?![\s\S]*hunter2)[\s\S]*DATABASE_URL/);
  });
});
