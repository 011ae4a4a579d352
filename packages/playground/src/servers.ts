/**
 * Real PostgreSQL and Redis servers for the key store's tests and benchmarks, from Debian's
 * packages, on loopback only: each started into its own temporary directory on a free port and
 * removed when stopped. No mocks.
 *
 * `serverBinariesMissing` says why a server cannot be started here (or undefined). Tests call
 * `missingServer`, which is the same check except under CI (process.env.CI === 'true'), where a
 * missing server is a failure; benchmarks, not CI-gated, report the reason instead.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** In every server URL, so a password that reaches a message or a log line is easy to spot. */
const PG_PASSWORD = 'pg-secret-pw-7f3a';
const REDIS_PASSWORD = 'redis-secret-pw-9c2e';

export type ServerKind = 'postgres' | 'redis';

const PG_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/local/bin', '/usr/bin'];
const PG_TOOLS = ['initdb', 'pg_ctl', 'createdb'];

export interface LocalServer {
  /** Base URL without a database (postgres) or index (redis). */
  url: string;
  /** A fresh database / index for one test or benchmark run. */
  newDatabase(): Promise<string>;
  stop(): Promise<void>;
  /** Kills the server as a crash would, keeping its data and port, until `up` (fault stories). */
  down(): Promise<void>;
  /** Starts it again on the same port with the same data; resolves once it accepts connections. */
  up(): Promise<void>;
}

export function which(binary: string, dirs: string[] = ['/usr/local/bin', '/usr/bin', '/usr/sbin']): string | undefined {
  for (const dir of dirs) {
    const candidate = path.join(dir, binary);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Why a server of this kind cannot be started on this machine, or undefined when it can. */
export function serverBinariesMissing(kind: ServerKind): string | undefined {
  const present = kind === 'postgres' ? PG_TOOLS.every((tool) => which(tool, PG_DIRS)) : which('redis-server') !== undefined;
  if (present) return undefined;
  return `${kind} binaries not found (apt-get install ${kind === 'postgres' ? 'postgresql' : 'redis-server'})`;
}

/** For tests: why this backend's tests skip here, or undefined when they can run. Throws under CI. */
export function missingServer(kind: ServerKind): string | undefined {
  const missing = serverBinariesMissing(kind);
  if (missing === undefined) return undefined;
  const reason = `${missing}; skipping ${kind} key-store tests`;
  if (process.env.CI === 'true') throw new Error(`${reason} — not allowed under CI`);
  return reason;
}

/**
 * A port nothing listens on now, for a process about to start (a bot's METRICS_PORT, a server).
 * Drawn at random from below the kernel's ephemeral range: a port the OS hands out for `listen(0)`
 * comes from that range, where every outgoing connection of every parallel test also takes its
 * local port, and one did take a bot's METRICS_PORT in the seconds before the bot listened.
 */
export async function freePort(): Promise<number> {
  const [low, high] = quietRange();
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  return listenAny();
}

/** Ports below the ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768 by default). */
function quietRange(): [number, number] {
  let ephemeralLow = 32_768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 12_000) ephemeralLow = first;
  } catch {
    // Not Linux: keep the IANA-style default.
  }
  return [10_000, ephemeralLow - 1];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function listenAny(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`server on port ${port} did not start within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function run(command: string, args: string[], asPostgres: boolean): void {
  const [file, argv] = asPostgres && process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
}

function pgTool(name: string): string {
  const found = which(name, PG_DIRS);
  if (!found) throw new Error(`postgres binary ${name} not found`);
  return found;
}

/**
 * initdb into a temp dir + pg_ctl start on a free loopback port; trust auth for the `feedbot`
 * user, or with `passwordAuth` the URL's password checked over TCP (scram), for tests of a wrong
 * password. fsync is off: nothing here needs to survive a crash of the machine.
 */
export async function startPostgres(opts: { passwordAuth?: boolean } = {}): Promise<LocalServer> {
  const [initdb, pgCtl, createdb] = PG_TOOLS.map(pgTool) as [string, string, string];
  const dir = await mkdtemp(path.join(tmpdir(), 'feedbot-pg-'));
  const asRoot = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root: the data dir belongs to the postgres user then.
  if (asRoot) {
    const { uid, gid } = postgresIds();
    await chown(dir, uid, gid);
  }
  await chmod(dir, 0o700);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off`;
  try {
    const auth = ['--auth=trust'];
    if (opts.passwordAuth) {
      const pwfile = path.join(dir, 'pwfile');
      await writeFile(pwfile, `${PG_PASSWORD}\n`, { mode: 0o600 });
      if (asRoot) await chown(pwfile, postgresIds().uid, postgresIds().gid);
      auth.splice(0, 1, '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
    }
    run(initdb, ['-D', data, '-U', 'feedbot', ...auth, '-E', 'UTF8', '--no-sync'], true);
    run(pgCtl, ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'], true);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const url = `postgres://feedbot:${PG_PASSWORD}@127.0.0.1:${port}`;
  let counter = 0;
  let stopped = false;
  return {
    url,
    async newDatabase() {
      counter += 1;
      const name = `keys_${process.pid}_${counter}`;
      // The client binary, over TCP with trust auth: the playground does not depend on a driver.
      const env = { ...process.env, PGPASSWORD: PG_PASSWORD };
      await promisify(execFile)(createdb, ['-h', '127.0.0.1', '-p', String(port), '-U', 'feedbot', name], { timeout: 30_000, env });
      return `${url}/${name}`;
    },
    async stop() {
      try {
        if (!stopped) run(pgCtl, ['-D', data, '-m', 'immediate', 'stop'], true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    down() {
      if (!stopped) run(pgCtl, ['-D', data, '-m', 'immediate', 'stop'], true);
      stopped = true;
      return Promise.resolve();
    },
    async up() {
      if (stopped) run(pgCtl, ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'], true);
      stopped = false;
      await waitForPort(port, 30_000);
    },
  };
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('no postgres user to run the server as');
  return { uid, gid };
}

/**
 * `redis-server --port P --bind 127.0.0.1 --save '' --appendonly no` in a temp dir; `port` for a
 * test that starts Redis where a bot already looks for it (default: a free port). `persistent`:
 * an append-only file synced on every write, as a Redis that holds keys is run, so the data
 * survives `down` and `up`.
 */
export async function startRedis(opts: { port?: number; persistent?: boolean } = {}): Promise<LocalServer> {
  const binary = which('redis-server');
  if (!binary) throw new Error('redis-server not found');
  const dir = await mkdtemp(path.join(tmpdir(), 'feedbot-redis-'));
  const port = opts.port ?? (await freePort());
  const durability = opts.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...durability, '--dir', dir, '--databases', '64', '--requirepass', REDIS_PASSWORD];
  let child: ChildProcess = spawn(binary, args, { stdio: 'ignore' });
  try {
    await waitForPort(port, 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let counter = 0;
  const url = `redis://:${REDIS_PASSWORD}@127.0.0.1:${port}`;
  return {
    url,
    newDatabase() {
      // Index 0 is left alone; each run gets its own index (pub/sub is server-wide).
      counter += 1;
      return Promise.resolve(`${url}/${(counter % 63) + 1}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
    async down() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async up() {
      if (child.exitCode === null && child.signalCode === null) return;
      child = spawn(binary, args, { stdio: 'ignore' });
      await waitForPort(port, 10_000);
    },
  };
}
