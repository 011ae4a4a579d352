/**
 * A long-running npm script stops on SIGTERM or SIGINT sent to npm's pid alone, as `kill <pid>`
 * or a supervisor that signals one process does. npm forwards the signal to the `sh -c` it
 * started, and sh does not pass it on: without `exec` in the script the program keeps running,
 * orphaned (a restart then runs two bots). Each script is started as `npm run
 * <script>` in its own process group; after the signal to npm's pid every process of that group
 * must be gone in bounded time. The demo also starts the bot in a process group of its own and
 * serves the playground: both must be gone too, the port free, within 10 s; and a demo that
 * is SIGKILLed must not leave its bot behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stack } from '@feedbot/playground';
import { silentLogger } from '../../src/logger.js';
import { buildOnce } from '../helpers/build.js';
import { STOP_TIMEOUT_MS } from '../../src/sharding/manager.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
/** Start-up of a script from source on a loaded two-core machine; the demo starts four programs. */
const UP_MS = 90_000;
/** How long the processes may take to go after the signal (10 s for the demo too). */
const GONE_MS = 10_000;

/** Processes that still run (zombies are gone: only their entry waits to be reaped). */
async function alive(filter: (stat: { pid: number; pgrp: number }) => boolean): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!stat || fields[0] === 'Z' || fields[0] === 'X') continue;
    if (filter({ pid: Number(entry), pgrp: Number(fields[2]) })) pids.push(Number(entry));
  }
  return pids;
}

const groupMembers = (pgid: number) => alive((s) => s.pgrp === pgid);
const running = async (pid: number) => (await alive((s) => s.pid === pid)).length > 0;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** A program started in its own process group, its output kept. */
class Group {
  output = '';
  readonly child: ChildProcess;
  constructor(command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  get pid(): number {
    return this.child.pid!;
  }

  waitFor(pattern: RegExp, timeoutMs = UP_MS): Promise<RegExpMatchArray> {
    return until(`${pattern} in the output: ${this.output.slice(-3000)}`, async () => this.output.match(pattern) ?? undefined, timeoutMs);
  }

  async gone(timeoutMs = GONE_MS): Promise<void> {
    await until(`every process of group ${this.pid} gone; output: ${this.output.slice(-3000)}`, async () => ((await groupMembers(this.pid)).length === 0 ? true : undefined), timeoutMs);
  }

  /** Whatever is left, at the end of a test (or after a failed one). */
  kill(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const started: Group[] = [];
const dirs: string[] = [];
const stacks: Stack[] = [];
/** The demo's bots: each runs in a process group of its own. */
const botGroups: number[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'feedbot-npm-signals-'));
  dirs.push(dir);
  return dir;
}

/** The environment of a script: no .env is read from the repository unless it exists there. */
function scriptEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_PRETTY: 'false', LOG_LEVEL: 'info', ...extra };
  return env;
}

/** `npm run <script>` in its own group, until `up` shows; then `signal` to npm's pid only, and every process gone. */
async function stopsOn(script: string, signal: NodeJS.Signals, env: NodeJS.ProcessEnv, up: RegExp, goneMs = GONE_MS): Promise<Group> {
  const group = new Group('npm', ['run', script], env);
  started.push(group);
  await group.waitFor(up);
  process.kill(group.pid, signal);
  await group.gone(goneMs);
  return group;
}

/** A sandbox and an emulator for one bot script, and the bot's environment against them. */
async function botEnv(): Promise<Record<string, string>> {
  const dir = await tempDir();
  const stack = await Stack.start({ dataDir: dir, logger: silentLogger() });
  stacks.push(stack);
  const { NODE_ENV: _, ...env } = stack.env;
  return env;
}

const READY = /"msg":"ready"/;

beforeAll(async () => {
  // `npm start` and `npm run start:sharded` run the compiled bot; a no-op when dist/ is up to date.
  await buildOnce();
}, 300_000);

afterAll(async () => {
  for (const group of started) group.kill();
  for (const pgid of botGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  for (const stack of stacks) await stack.close().catch(() => undefined);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe.concurrent('npm scripts stop on a signal to npm alone', () => {
  it('npm start', async () => {
    const env = await botEnv();
    for (const signal of SIGNALS) await stopsOn('start', signal, scriptEnv({ ...env, DATABASE_URL: `sqlite://${join(await tempDir(), 'keys.sqlite')}` }), READY);
  }, 300_000);

  it('npm run start:sharded', async () => {
    const env = await botEnv();
    // Signalled once every shard process is ready; the manager allows each shard process its
    // drain and SIGKILLs it after STOP_TIMEOUT_MS, so the group is bounded by that plus the exit.
    for (const signal of SIGNALS) {
      const shardedEnv = scriptEnv({ ...env, SHARD_COUNT: '2', DATABASE_URL: `sqlite://${join(await tempDir(), 'keys.sqlite')}` });
      await stopsOn('start:sharded', signal, shardedEnv, /every shard process is ready/, STOP_TIMEOUT_MS + 5_000);
    }
  }, 300_000);

  it('npm run dev', async () => {
    const env = await botEnv();
    for (const signal of SIGNALS) await stopsOn('dev', signal, scriptEnv({ ...env, DATABASE_URL: `sqlite://${join(await tempDir(), 'keys.sqlite')}` }), READY);
  }, 300_000);

  it('npm run sandbox', async () => {
    for (const signal of SIGNALS) {
      await stopsOn('sandbox', signal, scriptEnv({ SANDBOX_PORT: '0', SANDBOX_DATA_DIR: await tempDir(), SANDBOX_SIMULATE_MS: '0' }), /feed API sandbox\s+https:/);
    }
  }, 300_000);

  it('npm run emulator', async () => {
    for (const signal of SIGNALS) await stopsOn('emulator', signal, scriptEnv({ EMULATOR_PORT: '0', DISCORD_TOKEN: 'emulated-token' }), /Discord emulator listening/);
  }, 300_000);

  it('npm run demo: the playground, its port and the bot (a process group of its own) are gone too', async () => {
    for (const signal of SIGNALS) {
      const group = new Group('npm', ['run', 'demo'], scriptEnv({ DEMO_PORT: '0', DEMO_DATA_DIR: await tempDir(), DEMO_SIMULATE_MS: '0' }));
      started.push(group);
      const [, port] = await group.waitFor(/Playground:\s+\S*http:\/\/127\.0\.0\.1:(\d+)/);
      const [, botPid] = await group.waitFor(/\(pid (\d+)\)/);
      botGroups.push(Number(botPid));
      expect(await running(Number(botPid))).toBe(true);
      const signalled = Date.now();
      process.kill(group.pid, signal);
      await group.gone();
      // Within the same 10 s of the signal (the bot may outlive the demo by the moment it takes to stop).
      await until(`the demo's bot (pid ${botPid}) gone`, async () => ((await running(Number(botPid))) ? undefined : true), Math.max(0, signalled + GONE_MS - Date.now()));
      expect(await portRefuses(Number(port))).toBe(true);
    }
  }, 300_000);
});

describe('the demo SIGKILLed', () => {
  it('takes its bot with it: the bot notices its parent is gone', async () => {
    // The demo's own process, without npm or tsx's CLI in front, so SIGKILL reaches it alone.
    const demo = new Group(process.execPath, ['--conditions=@feedbot/source', '--import', TSX, join(ROOT, 'packages', 'playground', 'src', 'main.ts')], scriptEnv({ DEMO_PORT: '0', DEMO_DATA_DIR: await tempDir(), DEMO_SIMULATE_MS: '0' }));
    started.push(demo);
    const [, botPid] = await demo.waitFor(/\(pid (\d+)\)/);
    botGroups.push(Number(botPid));
    process.kill(demo.pid, 'SIGKILL');
    await until(`the demo's bot (pid ${botPid}) gone after the demo was SIGKILLed`, async () => ((await running(Number(botPid))) ? undefined : true), GONE_MS);
  }, 300_000);
});
