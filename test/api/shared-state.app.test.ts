/**
 * REDIS_URL as createBot wires it: two bots (replicas) on one real Redis answer each other's
 * autocomplete from one upstream request; a Redis that cannot be reached does not stop start-up
 * (one warn line that names where, never the password; the replica carries on alone).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createBot, type BotApp, type BotConfig } from '../../src/app.js';
import { silentLogger } from '../../src/logger.js';
import { callCount } from './fixtures.js';
import { FEED_LIST, captureLogger } from './helpers.js';
import { RedisServerFixture, redisMissing } from './shared-redis.js';

const ORIGIN = 'https://feeds.test';
const AUTH = { apiKey: 'fk_live_AppWiringKey_0123456789', guildId: '1100000000000000001' };

describe.skipIf(redisMissing !== undefined)('createBot with REDIS_URL', () => {
  const redis = new RedisServerFixture();
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-shared-'));
  afterAll(async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function config(name: string, redisUrl: string): BotConfig {
    return {
      FEED_API_URL: `${ORIGIN}/v1`,
      KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 3),
      KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
      DATABASE_URL: `sqlite://${join(dir, `${name}.sqlite`)}`,
      DISCORD_API_URL: undefined,
      FEED_API_TIMEOUT_MS: 1000,
      REDIS_URL: redisUrl,
    };
  }

  it('replicas share the feeds cache: one upstream request serves both', async () => {
    const server = await redis.startServer();
    const agent = new MockAgent({ enableCallHistory: true });
    agent.disableNetConnect();
    const bots: BotApp[] = [];
    try {
      const url = await server.newDatabase();
      for (const name of ['a', 'b']) bots.push(await createBot(config(name, url), { logger: silentLogger(), dispatcher: agent, drainTimeoutMs: 100 }));
      agent.get(ORIGIN).intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, FEED_LIST);
      await bots[0]!.api.listFeeds(AUTH);
      expect(await bots[1]!.api.cachedFeeds(AUTH.guildId)).toEqual(FEED_LIST);
      expect(callCount(agent)).toBe(1);
    } finally {
      for (const bot of bots) await bot.stop();
      await agent.close();
      await server.stop();
    }
  });

  it('a Redis that cannot be reached does not stop start-up: the replica carries on alone', async () => {
    const server = await redis.startServer();
    const url = await server.newDatabase();
    await server.stop();
    const { logger, lines } = captureLogger();
    const bot = await createBot(config('down', url), { logger, drainTimeoutMs: 100 });
    try {
      const warn = lines.find((l) => l.includes('Redis does not answer at start-up'));
      expect(warn).toMatch(/"where":"redis:\/\/127\.0\.0\.1:\d+\/\d+"/);
      expect(lines.join('')).not.toContain('redis-secret-pw');
      // The replay guard decides on this replica's memory meanwhile.
      expect(await bot.seen.firstTime('1300000000000000001')).toBe(true);
      expect(await bot.seen.firstTime('1300000000000000001')).toBe(false);
    } finally {
      await bot.stop();
    }
  });
});
