/**
 * Redis down at start-up, as an operator meets it: the real bot process (src/index.ts, as `npm
 * start` runs it, against the emulator and the sandbox) started with REDIS_URL naming a Redis
 * that is down. It must start, answer commands, and once Redis listens say so and share again:
 * a replica that exited instead would crash-loop for the whole outage. Skipped locally without redis-server, a failure under CI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMBER_PERMISSIONS, MEMBER_USER_ID, Stack, missingServer, startRedis, type BotProcess, type LocalServer } from '@feedbot/playground';
import { silentLogger } from '../../src/logger.js';

const missing = missingServer('redis');
if (missing) console.warn(missing);

describe.skipIf(missing !== undefined)('the bot started while Redis is down', () => {
  let dir: string;
  let stack: Stack;
  let port: number;
  let redis: LocalServer | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-redis-down-'));
    // A server started and stopped: its port is closed, its URL (with the password) is REDIS_URL.
    const gone = await startRedis();
    const url = `${gone.url}/7`;
    port = Number(new URL(gone.url).port);
    await gone.stop();
    stack = await Stack.start({ dataDir: join(dir, 'stack'), logger: silentLogger(), botEnv: { REDIS_URL: url } });
    await stack.deployCommands();
  }, 90_000);

  afterAll(async () => {
    await stack?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('starts, answers a command, and shares again once Redis is up', async () => {
    const bot = (await stack.startBot()) as BotProcess;
    const warn = await bot.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('Redis does not answer at start-up'));
    expect(warn.level).toBe(40);
    const answer = await stack.emulator
      .sendInteraction({ type: 'command', commandName: 'stats', userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS })
      .waitForFinal({ timeoutMs: 15_000 });
    expect(answer.state).not.toBe('expired');
    expect(bot.running).toBe(true);

    redis = await startRedis({ port });
    await bot.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('Redis answers again'), 20_000);
    expect(bot.running).toBe(true);
    const everything = JSON.stringify(bot.lines) + bot.stderr.join('');
    expect(everything).not.toContain('redis-secret-pw');
    expect(everything).not.toMatch(/\n\s+at /);
  });
});
