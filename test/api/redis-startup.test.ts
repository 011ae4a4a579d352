/**
 * REDIS_URL unreachable or refusing the password when the replica starts. The README
 * promises "Redis down: each replica carries on alone": at start-up as well, so opening the shared
 * state never fails; the replica gates and caches on its own, confirmations ask to try again, and
 * the link keeps connecting in the background until the replicas share again. Real redis-server
 * processes on loopback (skipped with a message without one, a failure under CI).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis, type LocalServer } from '@feedbot/playground';
import { RedisSharedState } from '../../src/replicas/redis-state.js';
import { ConfirmationsUnavailableError } from '../../src/interactions/pending.js';
import { captureLogger, rejection } from './helpers.js';
import { redisMissing } from './shared-redis.js';

const PASSWORD = 'redis-secret-pw-9c2e';

/** Polls `check` until it returns true, or fails after `timeoutMs`. */
async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

describe.skipIf(redisMissing !== undefined)('shared state when Redis is down at start-up', () => {
  const servers: LocalServer[] = [];
  const states: RedisSharedState[] = [];
  afterEach(async () => {
    await Promise.allSettled(states.splice(0).map((s) => s.close()));
    await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
  });

  it('starts alone when nothing listens, then shares once Redis is up on that port', async () => {
    // A server started and stopped: its port is closed now, and its URL is what REDIS_URL names.
    const gone = await startRedis();
    const url = `${gone.url}/5`;
    const port = Number(new URL(gone.url).port);
    await gone.stop();

    const { logger, lines } = captureLogger();
    const started = Date.now();
    const replicaA = await RedisSharedState.open(url, logger);
    states.push(replicaA);
    expect(Date.now() - started).toBeLessThan(6_000);
    // One warn line: where and why, that the replica carries on, that it keeps trying.
    const warns = lines.filter((l) => l.includes('"level":40'));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain('ECONNREFUSED');
    expect(warns[0]).toContain('in the background');
    expect(lines.join('')).not.toContain(PASSWORD);

    // Meanwhile: confirmations ask to try again, the replay guard decides alone.
    const pendingA = replicaA.pendingConfirmations();
    expect(await rejection(pendingA.put('q1', '{"a":1}', 60_000))).toBeInstanceOf(ConfirmationsUnavailableError);
    const seenA = replicaA.seenInteractions();
    expect(await seenA.firstTime('i1')).toBe(true);
    expect(await seenA.firstTime('i1')).toBe(false);

    servers.push(await startRedis({ port }));
    await until('replica A reaches Redis', 20_000, async () => {
      await pendingA.put('q2', '{"asked":"on A"}', 60_000);
      return true;
    });
    // Another replica sees what A stored: the state is shared again.
    const replicaB = await RedisSharedState.open(url, captureLogger().logger);
    states.push(replicaB);
    expect(await replicaB.pendingConfirmations().take('q2')).toBe('{"asked":"on A"}');
    expect(lines.some((l) => l.includes('Redis answers again'))).toBe(true);
    expect(lines.join('')).not.toContain(PASSWORD);
  });

  it('starts alone when Redis refuses the password, saying so once, without the password', async () => {
    const server = await startRedis();
    servers.push(server);
    const wrong = server.url.replace(PASSWORD, 'not-the-password-77');
    const { logger, lines } = captureLogger();
    const state = await RedisSharedState.open(`${wrong}/3`, logger);
    states.push(state);
    expect(await rejection(state.pendingConfirmations().take('q'))).toBeInstanceOf(ConfirmationsUnavailableError);
    // The link keeps trying (with backoff) without a line per attempt.
    await new Promise((r) => setTimeout(r, 1_500));
    const warns = lines.filter((l) => l.includes('"level":40'));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain('WRONGPASS');
    expect(lines.join('')).not.toContain('not-the-password-77');
  });
});
