/**
 * `npm run emulator` (src/main.ts) as its own process.
 *
 * - An empty variable means unset: `.env` lines such as `EMULATOR_PORT=` (as an .env.example
 *   ships them) must not take port 0 (a random one), be refused as an invalid host
 *   (`EMULATOR_HOST=`) or give no guild at all (`EMULATOR_GUILDS=`).
 * - A signal stops it in bounded time. A refused WebSocket handshake must destroy its socket once answered, not
 *   just end() it: server.close() waits for every socket, so one client that never closes its
 *   side would keep the emulator running after SIGTERM for as long as it liked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
const MAIN = join(PACKAGE_ROOT, 'src', 'main.ts');
const TSX = pathToFileURL(join(PACKAGE_ROOT, '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
/** Start-up from source (tsx) on a loaded two-core machine. */
const UP_MS = 60_000;
/** The most a stop may take (main.ts's bound is 5 s), with room for a loaded machine. */
const STOPPED_MS = 8_000;
const DEFAULT_PORT = 8787;

class Emulator {
  output = '';
  readonly exited: Promise<number | null>;
  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Resolves with the match once `pattern` shows in the output; rejects if the process exits first or at the bound. */
  waitFor(pattern: RegExp, timeoutMs = UP_MS): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.output.match(pattern);
        if (match) done(() => resolve(match));
      };
      const onExit = () => setImmediate(() => done(() => reject(new Error(`exited before ${pattern}: ${this.output}`))));
      const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${this.output}`))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.child.stdout?.off('data', check);
        this.child.off('exit', onExit);
        settle();
      };
      this.child.stdout?.on('data', check);
      this.child.once('exit', onExit);
      check();
    });
  }

  /** The exit code, or 'running' if it has not exited within `timeoutMs`. */
  async exitWithin(timeoutMs: number): Promise<number | null | 'running'> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), timeoutMs)));
    try {
      return await Promise.race([this.exited, bound]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The emulator's main from a folder holding `.env` with `dotenv`, the environment otherwise bare. */
async function startMain(dotenv: string, args: string[] = []): Promise<Emulator> {
  const dir = await mkdtemp(join(tmpdir(), 'emulator-main-'));
  dirs.push(dir);
  await writeFile(join(dir, '.env'), dotenv);
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Emulator(child);
}

/** Holds 127.0.0.1:`port` for the test, unless something already does (then it is held anyway). */
async function holdPort(port: number): Promise<void> {
  const server: Server = createServer();
  const held = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (held) cleanups.push(() => server.close());
}

/** A connection to 127.0.0.1:`port`; half-open allowed: it keeps its side open when the server ends its own. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

describe("npm run emulator's banner, for running the bot against it", () => {
  it('names the guild ids (for npm run sandbox -- --guild) and, for a token feedbot would refuse, one it takes', async () => {
    const emulator = await startMain('DISCORD_TOKEN=local-test-token\n', ['--port', '0', '--guilds', '5']);
    const [, ids] = await emulator.waitFor(/guild ids ([\d, …]+)/);
    expect(ids!.trim()).toMatch(/^\d{17,20}, \d{17,20}, \d{17,20}, …$/);
    const [, token] = await emulator.waitFor(/one that works with this emulator: (\S+)/);
    const [, application] = await emulator.waitFor(/application (\d+),/);
    // The shape feedbot's configuration checks: three parts, the first the application id in base64.
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(Buffer.from(token!.split('.')[0]!, 'base64').toString('utf8')).toBe(application);
  }, UP_MS + 10_000);

  it('says nothing of the token when it is shaped like a bot token', async () => {
    const emulator = await startMain('DISCORD_TOKEN=MTExMTExMTExMTExMTExMTEx.abc.def\n', ['--port', '0']);
    await emulator.waitFor(/guild ids/);
    expect(emulator.output).not.toContain('note: feedbot refuses');
  }, UP_MS + 10_000);
});

describe('npm run emulator reads an empty variable as unset', () => {
  it('EMULATOR_HOST= and EMULATOR_GUILDS= take their defaults (127.0.0.1, one guild)', async () => {
    const emulator = await startMain('DISCORD_TOKEN=emulated-token\nEMULATOR_HOST=\nEMULATOR_GUILDS=\nEMULATOR_PORT=\n', ['--port', '0']);
    await emulator.waitFor(/application \d+, 1 guild\(s\)/);
    expect(emulator.output).toMatch(/DISCORD_API_URL=http:\/\/127\.0\.0\.1:\d+\/api/);
  }, UP_MS + 10_000);

  it('EMULATOR_PORT= is the default port 8787, not a random one', async () => {
    // Whatever holds 8787 (this test, or anything else), the emulator must try that port.
    await holdPort(DEFAULT_PORT);
    const emulator = await startMain('DISCORD_TOKEN=emulated-token\nEMULATOR_PORT=\n');
    expect(await emulator.exitWithin(UP_MS)).toBe(1);
    expect(emulator.output).toContain(`EADDRINUSE: address already in use 127.0.0.1:${DEFAULT_PORT}`);
    expect(emulator.output).not.toContain('Discord emulator listening');
  }, UP_MS + 10_000);
});

describe('npm run emulator stops on a signal in bounded time', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s while a client holds a refused handshake open', async (signal) => {
    const emulator = await startMain('DISCORD_TOKEN=emulated-token\n', ['--port', '0']);
    const [, port] = await emulator.waitFor(/DISCORD_API_URL=http:\/\/127\.0\.0\.1:(\d+)\//);
    // Refused (wrong Host): the emulator answers and ends its side; this client never ends its own.
    const holder = await open(Number(port));
    cleanups.push(() => holder.destroy());
    const answered = new Promise<string>((resolve) => holder.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
    holder.write(`GET /gateway HTTP/1.1\r\nHost: evil.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    expect(await answered).toMatch(/^HTTP\/1\.1 421 /);
    // And one that is mid-request.
    const dribbler = await open(Number(port));
    cleanups.push(() => dribbler.destroy());
    dribbler.write(`GET /api/v10/gateway HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);

    emulator.child.kill(signal);
    expect(await emulator.exitWithin(STOPPED_MS), emulator.output).toBe(0);
  }, UP_MS + STOPPED_MS + 10_000);
});
