/**
 * The shard manager's death, with real processes: `npm run start:sharded` (the manager and one
 * process per shard) against the emulator. A request line no URL parser accepts, sent to the
 * manager's ops port, gets 400 and the manager stays up (an uncaught exception would kill it);
 * and when the manager dies anyway (SIGKILL, or a crash) its shard processes exit within a
 * bounded time instead of running on, re-parented to PID 1 and still connected to Discord.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, Stack, type BotProcess } from '@feedbot/playground';
import { silentLogger } from '../../src/logger.js';
import { rawRequest } from '../http/raw-client.js';
import { alive } from './process-kit.js';

const SHARD_COUNT = 2;
const INJECTOR = resolve(import.meta.dirname, '../sharding/crash-injector.mjs');


async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

describe.skipIf(process.platform !== 'linux')('the shard manager (npm run start:sharded)', () => {
  let dir: string;
  let stack: Stack;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-manager-death-'));
    stack = await Stack.start({ dataDir: dir, logger: silentLogger(), botEnv: { SHARD_COUNT: String(SHARD_COUNT) } });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** A manager with its ops port, once every shard process is ready; and the pids of those. */
  async function startManager(env: Record<string, string> = {}): Promise<{ manager: BotProcess; opsPort: number; shardPids: number[] }> {
    const opsPort = await freePort();
    const manager = stack.spawnBot({ entry: 'sharded', env: { METRICS_PORT: String(opsPort), ...env } });
    await manager.waitForLog((l) => l.msg === 'every shard process is ready', 120_000);
    const shardPids = manager.lines.filter((l) => l.msg === 'shard process started').map((l) => Number(l.pid));
    expect(shardPids).toHaveLength(SHARD_COUNT);
    for (const pid of shardPids) expect(alive(pid)).toBe(true);
    return { manager, opsPort, shardPids };
  }

  async function expectShardsGone(shardPids: number[], manager: BotProcess): Promise<void> {
    // Each drains as on SIGTERM (nothing in flight here) and exits.
    const gone = await waitUntil(() => shardPids.every((pid) => !alive(pid)), 30_000);
    expect(gone, `shard processes still running: ${shardPids.filter(alive).join(', ')}`).toBe(true);
    // The output pipes close only once every process holding them is gone.
    await expect(Promise.race([manager.exited, new Promise((r) => setTimeout(() => r('pipes still open'), 10_000))])).resolves.not.toBe('pipes still open');
  }

  it('answers 400 at once to request lines it cannot parse and stays up; SIGKILLed, it takes its shard processes with it', async () => {
    const { manager, opsPort, shardPids } = await startManager();
    for (const line of ['GET //x:99999/ HTTP/1.1', 'GET http://[ HTTP/1.1']) {
      const answer = await rawRequest(opsPort, `${line}\r\nHost: a\r\n\r\n`, 3_000);
      expect(answer.statusLine, line).toBe('HTTP/1.1 400 Bad Request');
      expect(answer.elapsedMs).toBeLessThan(1_000);
    }
    const health = await request(`http://127.0.0.1:${opsPort}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    expect(manager.running).toBe(true);
    expect(manager.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);

    // SIGKILL to the manager alone, as the OOM killer or `kill -9 <pid>` does.
    process.kill(manager.child.pid!, 'SIGKILL');
    await expectShardsGone(shardPids, manager);
    const stopping = manager.lines.filter((l) => l.msg === 'the shard manager is gone: stopping');
    expect(stopping.map((l) => l.level)).toEqual([40, 40]);
    // Stopping without the manager is no error (discord.js's messages to it have nowhere to go).
    expect(manager.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  }, 180_000);

  it.each([
    ['an uncaught exception', 'SIGUSR2', /injected crash \(uncaught exception\)/],
    ['an unhandled rejection', 'SIGWINCH', /injected crash \(unhandled rejection\)/],
  ] as const)('crashing on %s, it stops its shard processes and exits 1', async (_what, signal, message) => {
    const NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${INJECTOR}`.trim();
    const { manager, shardPids } = await startManager({ NODE_OPTIONS });
    process.kill(manager.child.pid!, signal);
    await expectShardsGone(shardPids, manager);
    expect((await manager.exited).code).toBe(1);
    const fatal = manager.lines.find((l) => Number(l.level) === 60 && l.component === 'shard-manager');
    expect(JSON.stringify(fatal)).toMatch(message);
    // The manager stopped them (SIGTERM: each drained), then itself.
    expect(manager.lines.filter((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toHaveLength(SHARD_COUNT);
    expect(manager.lines.some((l) => l.msg === 'stopped' && l.component === 'shard-manager')).toBe(true);
  }, 180_000);
});
