/**
 * The rolling restart of the real HostManager (discord.js's ShardingManager and Shard, real child
 * processes), with a stand-in for the bot in each shard process (fake-shard.mjs): it gets READY
 * after a moment, drains on SIGTERM, and writes each step with its time. Checked: each
 * replacement is READY before its predecessor gets SIGTERM; waves wait an identify window and
 * hold at most max_concurrency shards; a replacement that does not become ready is stopped and the
 * shard keeps its process; after a roll the new processes are respawned and the old ones are not.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awaitShardReady } from '../../src/sharding/host-ops.js';
import { HostManager, type RollOutcome } from '../../src/sharding/manager.js';
import { notAManager } from '../../src/sharding/roll.js';

const FAKE = resolve(import.meta.dirname, 'fake-shard.mjs');
const WINDOW_MS = 400;

interface Event {
  t: number;
  pid: number;
  shard: number;
  event: 'start' | 'ready' | 'fail' | 'sigterm' | 'exit';
}

type Line = Record<string, unknown> & { msg: string };

let dir: string;
let hosts: HostManager[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-roll-'));
  // discord.js's Shard hands its process the manager's environment as it is when the Shard is made.
  process.env.FAKE_SHARD_DIR = dir;
  control({});
  hosts = [];
});

afterEach(async () => {
  for (const host of hosts) host.kill();
  await new Promise((r) => setTimeout(r, 100));
  delete process.env.FAKE_SHARD_DIR;
  rmSync(dir, { recursive: true, force: true });
});

function control(value: { readyMs?: number; drainMs?: number; fail?: number[]; neverReady?: number[] }): void {
  writeFileSync(join(dir, 'control.json'), JSON.stringify(value));
}

function events(): Event[] {
  let text = '';
  try {
    text = readFileSync(join(dir, 'events.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);
}

const at = (pid: number, event: Event['event']) => events().find((e) => e.pid === pid && e.event === event)?.t;
const startsOf = (shard: number) => events().filter((e) => e.shard === shard && e.event === 'start');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function makeHost(opts: { ids: number[]; maxConcurrency: number; readyTimeoutMs?: number; preflight?: (needed: number) => Promise<string | undefined>; confirm?: boolean }) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  const respawned: number[] = [];
  const host = new HostManager({
    file: FAKE,
    token: 'fake-token',
    plan: { count: Math.max(...opts.ids) + 1, ids: opts.ids, maxConcurrency: opts.maxConcurrency },
    logger: pino({ level: 'info' }, sink),
    execArgv: [],
    onRespawn: (id) => respawned.push(id),
    identifyWindowMs: WINDOW_MS,
    readyTimeoutMs: opts.readyTimeoutMs ?? 10_000,
    stopTimeoutMs: 5_000,
    ...(opts.preflight ? { rollPreflight: opts.preflight } : {}),
    ...(opts.confirm ? { confirmReady: (shard) => awaitShardReady(shard, { timeoutMs: 5_000, intervalMs: 50 }) } : {}),
  });
  hosts.push(host);
  const pids = () => opts.ids.map((id) => host.shard(id)?.process?.pid ?? 0);
  return { host, lines, respawned, pids };
}

describe('HostManager.roll (SIGUSR2)', () => {
  it('replaces each shard process only once its replacement is ready, one wave per identify window', async () => {
    const { host, lines, pids } = makeHost({ ids: [0, 1, 2, 3], maxConcurrency: 2, confirm: true });
    await host.start();
    const before = pids();
    expect(before.every((pid) => pid > 0 && alive(pid))).toBe(true);

    const outcome = await host.roll();
    expect(outcome).toBe<RollOutcome>('rolled');
    const after = pids();
    for (const [i, pid] of after.entries()) {
      expect(pid, `shard ${i}`).not.toBe(before[i]);
      expect(alive(pid)).toBe(true);
      expect(alive(before[i]!)).toBe(false);
      // The replacement was ready before its predecessor was asked to stop, which then drained.
      expect(at(pid, 'ready')!).toBeLessThanOrEqual(at(before[i]!, 'sigterm')!);
      expect(at(before[i]!, 'exit')).toBeDefined();
    }
    // max_concurrency 2: waves [0, 1] and [2, 3]; the second starts a window after the first is ready.
    const firstReady = Math.max(at(after[0]!, 'ready')!, at(after[1]!, 'ready')!);
    for (const i of [2, 3]) expect(at(after[i]!, 'start')! - firstReady).toBeGreaterThanOrEqual(WINDOW_MS - 50);
    for (const i of [0, 1]) expect(at(after[i]!, 'start')!).toBeLessThan(at(after[2]!, 'start')!);
    expect(lines.map((l) => l.msg)).toContain('rolling restart done: every shard process was replaced');
    expect(lines.filter((l) => l.msg === 'replaced shard process exited')).toHaveLength(4);
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
  }, 30_000);

  it('never has more than max_concurrency replacements identifying within one window', async () => {
    const { host, pids } = makeHost({ ids: [0, 1, 2], maxConcurrency: 1 });
    await host.start();
    const before = pids();
    expect(await host.roll()).toBe('rolled');
    const starts = events()
      .filter((e) => e.event === 'start' && !before.includes(e.pid))
      .map((e) => e.t)
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(3);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(WINDOW_MS - 50);
  }, 30_000);

  it('a replacement that fails before READY: stopped, not started again; its shard keeps its process, and the roll stops', async () => {
    const { host, lines, pids, respawned } = makeHost({ ids: [0, 1, 2], maxConcurrency: 1 });
    await host.start();
    const before = pids();
    control({ fail: [1] });
    expect(await host.roll()).toBe('failed');
    const after = pids();
    expect(after[0]).not.toBe(before[0]);
    expect(after.slice(1)).toEqual(before.slice(1));
    for (const pid of after) expect(alive(pid)).toBe(true);
    // Shard 1: its first process and the replacement that failed, nothing more; shard 2: never replaced.
    await new Promise((r) => setTimeout(r, 300));
    expect(startsOf(1)).toHaveLength(2);
    expect(startsOf(2)).toHaveLength(1);
    expect(respawned).toEqual([]);
    const error = lines.find((l) => l.msg.startsWith('rolling restart stopped'));
    expect(error).toMatchObject({ level: 50, shards: '1', notReplaced: '1-2' });
    expect(host.isRolling).toBe(false);
  }, 30_000);

  it('a replacement that is not ready in time gets SIGTERM; the shard keeps its process', async () => {
    // Long enough for the replacement to boot and say so on a loaded machine (800 ms was not, once).
    const { host, pids } = makeHost({ ids: [0], maxConcurrency: 1, readyTimeoutMs: 2_500 });
    await host.start();
    const [before] = pids();
    control({ neverReady: [0] });
    expect(await host.roll()).toBe('failed');
    expect(pids()).toEqual([before]);
    const replacement = startsOf(0).at(-1)!.pid;
    expect(replacement).not.toBe(before);
    await waitUntil(() => !alive(replacement));
    expect(at(replacement, 'sigterm')).toBeDefined();
    expect(alive(before!)).toBe(true);
    expect(at(before!, 'sigterm')).toBeUndefined();
  }, 30_000);

  it('after a roll a new process that dies is started again, and no predecessor is', async () => {
    const { host, lines, pids, respawned } = makeHost({ ids: [0, 1], maxConcurrency: 2 });
    await host.start();
    const before = pids();
    expect(await host.roll()).toBe('rolled');
    const [rolled0] = pids();
    process.kill(rolled0!, 'SIGKILL');
    await waitUntil(() => startsOf(0).length === 3 && host.shard(0)?.ready === true);
    expect(respawned).toEqual([0]);
    const [respawn0] = pids();
    expect(respawn0).not.toBe(rolled0);
    expect(before.includes(respawn0!)).toBe(false);
    expect(startsOf(1)).toHaveLength(2);
    expect(lines.find((l) => l.msg === 'shard process exited' && l.shard === 0)).toMatchObject({ signal: 'SIGKILL', respawning: true });

    // A second roll works the same from there.
    expect(await host.roll()).toBe('rolled');
    expect(startsOf(0)).toHaveLength(4);
    expect(startsOf(1)).toHaveLength(3);
  }, 30_000);

  it('ignores a roll while starting, while one is under way, and while stopping', async () => {
    const { host, lines, pids } = makeHost({ ids: [0, 1], maxConcurrency: 1 });
    const starting = host.start();
    expect(await host.roll()).toBe('ignored');
    await starting;
    const first = host.roll();
    expect(await host.roll()).toBe('ignored');
    expect(await first).toBe('rolled');
    const running = pids();
    await host.stop();
    expect(await host.roll()).toBe('ignored');
    expect(running.some(alive)).toBe(false);
    expect(lines.filter((l) => l.msg.startsWith('rolling restart ignored')).map((l) => [l.level, l.msg])).toEqual([
      [30, 'rolling restart ignored: the shard processes are still starting'],
      [30, 'rolling restart ignored: a rolling restart is already under way'],
      [30, 'rolling restart ignored: the host is stopping'],
    ]);
  }, 30_000);

  it('stop() during a roll stops the replacements and the draining predecessors too', async () => {
    const { host } = makeHost({ ids: [0, 1], maxConcurrency: 1 });
    await host.start();
    control({ readyMs: 400, drainMs: 300 });
    const rolling = host.roll();
    // Wave 1 took over (shard 0's predecessor drains); wave 2 waits its window.
    await waitUntil(() => events().some((e) => e.event === 'sigterm'));
    await host.stop();
    expect(await rolling).toBe('stopped');
    const pids = [...new Set(events().map((e) => e.pid))];
    expect(pids).toHaveLength(3);
    expect(pids.filter(alive)).toEqual([]);
  }, 30_000);

  it('a refusing preflight (session start limit) starts nothing', async () => {
    const needs: number[] = [];
    const { host, lines, pids } = makeHost({
      ids: [0, 1, 2],
      maxConcurrency: 1,
      preflight: async (needed) => {
        needs.push(needed);
        return 'Refusing to roll (restart) 3 shard processes: …';
      },
    });
    await host.start();
    const before = pids();
    expect(await host.roll()).toBe('refused');
    expect(needs).toEqual([3]);
    expect(pids()).toEqual(before);
    expect(events().filter((e) => e.event === 'start')).toHaveLength(3);
    expect(lines.find((l) => l.msg.startsWith('rolling restart refused'))).toMatchObject({ level: 50, needed: 3, reason: 'Refusing to roll (restart) 3 shard processes: …' });
    // A preflight that cannot ask Discord refuses too.
    const failing = makeHost({ ids: [0], maxConcurrency: 1, preflight: () => Promise.reject(new Error('connect ECONNREFUSED')) });
    await failing.host.start();
    expect(await failing.host.roll()).toBe('refused');
    expect(failing.lines.find((l) => l.msg.startsWith('rolling restart refused'))?.msg).toMatch(/could not check Discord's session start limit.*ECONNREFUSED/);
  }, 30_000);
});

describe('roll.ts (the command that sends SIGUSR2)', () => {
  it('signals only a shard manager', () => {
    const cmdline = (args: string[]) => () => args.join('\0') + '\0';
    expect(notAManager(10, cmdline(['node', '--enable-source-maps', 'dist/src/sharded.js']))).toBeUndefined();
    expect(notAManager(10, cmdline(['/usr/bin/node', '--import', 'tsx', '/app/src/sharded.ts']))).toBeUndefined();
    expect(notAManager(10, cmdline(['node', '--enable-source-maps', '/app/dist/src/index.js']))).toMatch(/process 10 is not a shard manager/);
    expect(notAManager(10, () => '')).toBe('process 10 is not running');
    expect(notAManager(10, () => undefined)).toBeUndefined();
  });
});
