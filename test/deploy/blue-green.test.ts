/**
 * docs/deploy/systemd/blue-green.sh, run as shipped: a stub `systemctl` first on PATH (it records
 * every call, and `start` launches a real process, test/deploy/fake-bot.mjs, whose /readyz on
 * 127.0.0.1 answers 503 until it is ready, then 200; `stop` sends it SIGTERM and waits for its
 * exit, as systemd does), and the colours' ports read from env files laid out as in /etc/feedbot.
 *
 * What must hold: the new colour is started, its /readyz polled until 200, and only then is the
 * old one stopped; a new colour that never gets ready, exits, or is interrupted is stopped again
 * and the old one keeps running, exit 1, within the time-out; and the script refuses (changing
 * nothing) what it could not do safely.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '@feedbot/playground';
import { readyz } from '../e2e/process-kit.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = path.join(ROOT, 'docs/deploy/systemd/blue-green.sh');
const FAKE_BOT = fileURLToPath(new URL('./fake-bot.mjs', import.meta.url));
const BLUE = 'feedbot-bg@blue.service';
const GREEN = 'feedbot-bg@green.service';

/** systemctl as far as the script uses it; each unit's process id in units/<unit>.pid. */
const STUB_SYSTEMCTL = String.raw`#!/usr/bin/env bash
set -u
dir=$STUB_DIR
printf '%s\n' "$*" >>"$dir/calls"
cmd=$1
shift
unit=''
for arg in "$@"; do [[ $arg == -* ]] || unit=$arg; done
pidfile=$dir/units/$unit.pid
# A test makes a command fail by creating fail/<command>.
if [[ -e $dir/fail/$cmd ]]; then echo "stub systemctl: $cmd failed" >&2; exit 1; fi
# Running, and not a zombie nobody reaped.
alive() {
  local state
  [[ -f $pidfile ]] || return 1
  state=$(awk '{ print $3 }' "/proc/$(<"$pidfile")/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}
case $cmd in
  is-active)
    if alive; then echo active; exit 0; fi
    if [[ -f $pidfile ]]; then echo failed; else echo inactive; fi
    exit 3 ;;
  start)
    alive && exit 0
    read -r port ready <"$dir/behaviour/$unit"
    node "$FAKE_BOT" "$port" "$ready" "$dir/events.jsonl" "$unit" >>"$dir/units/$unit.out" 2>&1 &
    echo $! >"$pidfile"
    exit 0 ;;
  stop)
    if alive; then
      kill -TERM "$(<"$pidfile")"
      for _ in $(seq 200); do alive || break; sleep 0.05; done
      alive && kill -KILL "$(<"$pidfile")"
    fi
    rm -f "$pidfile"
    exit 0 ;;
  enable) touch "$dir/enabled/$unit" ;;
  disable) rm -f "$dir/enabled/$unit" ;;
  *) echo "stub systemctl: $cmd was not expected" >&2; exit 1 ;;
esac
`;

interface BotEvent {
  t: number;
  name: string;
  pid: number;
  event: 'listening' | '200' | '503' | 'sigterm' | 'exit' | 'crash';
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const hosts: Host[] = [];

/** One host: the stub's state, /etc/feedbot as the units read it, and the two colours' ports. */
class Host {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'feedbot-bg-'));
  readonly envDir = path.join(this.dir, 'etc');
  private readonly bin = path.join(this.dir, 'bin');

  private constructor(readonly ports: { blue: number; green: number }) {
    for (const sub of ['units', 'behaviour', 'enabled', 'fail', 'etc', 'bin']) mkdirSync(path.join(this.dir, sub));
    writeFileSync(path.join(this.bin, 'systemctl'), STUB_SYSTEMCTL, { mode: 0o755 });
    writeFileSync(path.join(this.dir, 'calls'), '');
    writeFileSync(path.join(this.dir, 'events.jsonl'), '');
    // feedbot.env as shipped (METRICS_PORT=9464 for every unit), each colour's file overriding it.
    writeFileSync(path.join(this.envDir, 'feedbot.env'), readFileSync(path.join(ROOT, 'docs/deploy/systemd/feedbot.env.example')));
    for (const colour of ['blue', 'green'] as const) this.colourPort(colour, ports[colour]);
    hosts.push(this);
  }

  static async create(): Promise<Host> {
    return new Host({ blue: await freePort(), green: await freePort() });
  }

  /** /etc/feedbot/feedbot-bg@<colour>.env: the shipped example with this port, or none at all. */
  colourPort(colour: 'blue' | 'green', port: number | undefined): void {
    const file = path.join(this.envDir, `feedbot-bg@${colour}.env`);
    if (port === undefined) return rmSync(file, { force: true });
    const shipped = readFileSync(path.join(ROOT, `docs/deploy/systemd/feedbot-bg@${colour}.env.example`), 'utf8');
    expect(shipped).toMatch(/^METRICS_PORT=\d+$/m);
    writeFileSync(file, shipped.replace(/^METRICS_PORT=\d+$/m, `METRICS_PORT=${port}`));
  }

  get env(): NodeJS.ProcessEnv {
    return { PATH: `${this.bin}:${process.env.PATH}`, STUB_DIR: this.dir, FAKE_BOT, FEEDBOT_BG_ENV_DIR: this.envDir, FEEDBOT_BG_INTERVAL: '0.2' };
  }

  /** How the colour's process behaves when started: ready after `ready` ms, `never`, or `crash`. */
  behave(colour: 'blue' | 'green', ready: number | 'never' | 'crash'): void {
    writeFileSync(path.join(this.dir, 'behaviour', `feedbot-bg@${colour}.service`), `${this.ports[colour]} ${ready}\n`);
  }

  /** Makes every later `systemctl <command>` fail. */
  failing(command: 'stop' | 'enable'): void {
    writeFileSync(path.join(this.dir, 'fail', command), '');
  }

  /** Starts a colour through the stub, as an earlier deploy left it, and waits until it is ready. */
  async running(colour: 'blue' | 'green'): Promise<void> {
    this.behave(colour, 0);
    const run = spawnSync(path.join(this.bin, 'systemctl'), ['start', `feedbot-bg@${colour}.service`], { env: this.env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    await until(`${colour} ready`, async () => (await readyz(this.ports[colour])) === 200);
    writeFileSync(path.join(this.dir, 'calls'), '');
  }

  /** Runs the script as shipped (its own shebang), with `env` added to the host's. */
  run(args: string[] = [], env: NodeJS.ProcessEnv = {}, onStart?: (child: ReturnType<typeof spawn>) => void): Promise<Run> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(SCRIPT, args, { env: { ...this.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (status) => resolve({ status, stdout, stderr, ms: Date.now() - started }));
      onStart?.(child);
    });
  }

  /** Every systemctl call but the state questions, in order. */
  actions(): string[] {
    return this.calls().filter((call) => !call.startsWith('is-active '));
  }

  calls(): string[] {
    return readFileSync(path.join(this.dir, 'calls'), 'utf8').split('\n').filter(Boolean);
  }

  events(unit?: string): BotEvent[] {
    const all = readFileSync(path.join(this.dir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as BotEvent);
    return unit ? all.filter((e) => e.name === unit) : all;
  }

  isRunning(unit: string): boolean {
    return spawnSync(path.join(this.bin, 'systemctl'), ['is-active', unit], { env: this.env }).status === 0;
  }

  enabled(): string[] {
    return readdirSync(path.join(this.dir, 'enabled')).sort();
  }

  cleanup(): void {
    const units = path.join(this.dir, 'units');
    for (const file of existsSync(units) ? readdirSync(units).filter((f) => f.endsWith('.pid')) : []) {
      try {
        process.kill(Number(readFileSync(path.join(units, file), 'utf8')), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

afterEach(() => {
  for (const host of hosts.splice(0)) host.cleanup();
});

const first = (events: BotEvent[], event: BotEvent['event']) => events.find((e) => e.event === event);

// Each test starts real processes and waits on real time: more than the default 20 s under load.
// The time bounds below show that nothing hangs, with room for a loaded machine's slow forks.
describe('docs/deploy/systemd/blue-green.sh', { timeout: 60_000 }, () => {
  it('starts the other colour, polls its /readyz until 200, then stops the running one', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 1_500);

    const run = await host.run();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${GREEN} is ready`);
    expect(host.actions()).toEqual([`start ${GREEN}`, `stop ${BLUE}`, `enable --quiet ${GREEN}`, `disable --quiet ${BLUE}`]);
    // The state of the new colour was watched while it started.
    const calls = host.calls();
    expect(calls.slice(calls.indexOf(`start ${GREEN}`), calls.indexOf(`stop ${BLUE}`))).toContain(`is-active ${GREEN}`);

    const green = host.events(GREEN);
    const blue = host.events(BLUE);
    const ready = first(green, '200')!;
    const sigterm = first(blue, 'sigterm')!;
    expect(ready, 'green answered 200').toBeDefined();
    expect(green.filter((e) => e.event === '503' && e.t < ready.t).length, 'polled while not ready').toBeGreaterThan(0);
    expect(sigterm, 'blue got SIGTERM').toBeDefined();
    expect(ready.t).toBeLessThanOrEqual(sigterm.t);
    expect(ready.t - first(green, 'listening')!.t).toBeGreaterThanOrEqual(1_400);
    // systemctl stop waited for blue's drain; green was never stopped.
    expect(first(blue, 'exit')).toBeDefined();
    expect(first(green, 'sigterm')).toBeUndefined();
    expect([host.isRunning(GREEN), host.isRunning(BLUE)]).toEqual([true, false]);
    expect(await readyz(host.ports.green)).toBe(200);
    expect(host.enabled()).toEqual([GREEN]);
    expect(run.ms).toBeLessThan(1_500 + 20_000);

    // The next deploy goes back: green to blue.
    host.behave('blue', 500);
    const back = await host.run();
    expect(back.status, back.stderr).toBe(0);
    expect(host.actions().slice(-4)).toEqual([`start ${BLUE}`, `stop ${GREEN}`, `enable --quiet ${BLUE}`, `disable --quiet ${GREEN}`]);
    expect([host.isRunning(BLUE), host.isRunning(GREEN)]).toEqual([true, false]);
    expect(host.enabled()).toEqual([BLUE]);
  });

  it('stops a new colour that never gets ready, keeps the old one, and exits 1 within the time-out', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 'never');

    const run = await host.run(['--timeout', '3']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${GREEN} did not become ready: no 200 from http://127.0.0.1:${host.ports.green}/readyz within 3 s`);
    // Why, in the colour's own words: its last answer.
    expect(run.stderr).toContain('503 {"ready":false,"reasons":["shard 0: Connecting"]}');
    expect(run.stderr).toContain(`${BLUE} keeps running (active)`);
    expect(host.actions()).toEqual([`start ${GREEN}`, `stop ${GREEN}`]);
    expect(first(host.events(BLUE), 'sigterm')).toBeUndefined();
    expect([host.isRunning(BLUE), host.isRunning(GREEN)]).toEqual([true, false]);
    expect(await readyz(host.ports.blue)).toBe(200);
    expect(run.ms).toBeGreaterThanOrEqual(2_000);
    expect(run.ms).toBeLessThan(3_000 + 20_000);
  });

  it('gives up at once on a new colour whose process exits', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 'crash');

    const run = await host.run(['--timeout', '60']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${GREEN} did not become ready: it is failed: its process exited`));
    expect(host.actions()).toEqual([`start ${GREEN}`, `stop ${GREEN}`]);
    expect(host.isRunning(BLUE)).toBe(true);
    // Long before the 60 s time-out.
    expect(run.ms).toBeLessThan(20_000);
  });

  it('stops the new colour when interrupted while it waits, and leaves the old one', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 'never');

    const run = await host.run(['--timeout', '60'], {}, (child) => {
      until('green listening', () => first(host.events(GREEN), 'listening')).then(
        () => child.kill('SIGTERM'),
        () => child.kill('SIGKILL'),
      );
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${GREEN} did not become ready: interrupted`);
    expect(host.actions()).toEqual([`start ${GREEN}`, `stop ${GREEN}`]);
    expect([host.isRunning(BLUE), host.isRunning(GREEN)]).toEqual([true, false]);
    expect(run.ms).toBeLessThan(20_000);
  });

  it('with neither colour running, starts blue and stops nothing', async () => {
    const host = await Host.create();
    host.behave('blue', 300);

    const run = await host.run();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('no colour runs');
    expect(host.actions()).toEqual([`start ${BLUE}`, `enable --quiet ${BLUE}`]);
    expect(host.isRunning(BLUE)).toBe(true);
  });

  it('with --keep-old, leaves the old colour running beside the new one, and boot starts the new one', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 200);

    const run = await host.run(['--keep-old']);
    expect(run.status, run.stderr).toBe(0);
    expect(host.actions()).toEqual([`start ${GREEN}`, `enable --quiet ${GREEN}`, `disable --quiet ${BLUE}`]);
    expect([host.isRunning(BLUE), host.isRunning(GREEN)]).toEqual([true, true]);
    expect(host.enabled()).toEqual([GREEN]);

    // The next run will not guess which of the two is the old one.
    const again = await host.run();
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('both colours run');
    expect(again.stderr).toContain('Nothing was changed.');
    expect(host.actions()).toHaveLength(3);
  });

  it('says so, exit 1, when the old colour cannot be stopped: both run, which is safe', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 0);
    host.failing('stop');

    const run = await host.run();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`could not stop ${BLUE}: both colours run`);
    expect(host.actions()).toEqual([`start ${GREEN}`, `stop ${BLUE}`]);
    expect([host.isRunning(BLUE), host.isRunning(GREEN)]).toEqual([true, true]);
  });

  it('stops the old colour even when what boot starts cannot be switched, and says so, exit 1', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 0);
    host.failing('enable');

    const run = await host.run();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${GREEN} runs and ${BLUE} stopped, but what boot starts could not be switched`);
    expect(host.actions()).toEqual([`start ${GREEN}`, `stop ${BLUE}`, `enable --quiet ${GREEN}`]);
    expect([host.isRunning(BLUE), host.isRunning(GREEN)]).toEqual([false, true]);
  });

  it('--next names the colour to build into', async () => {
    const host = await Host.create();
    expect((await host.run(['--next'])).stdout).toBe('blue\n');
    await host.running('blue');
    expect((await host.run(['--next'])).stdout).toBe('green\n');
    expect(host.actions()).toEqual([]);
  });

  it('refuses, starting nothing, when the new colour would share the old one’s port', async () => {
    const host = await Host.create();
    await host.running('blue');
    // No feedbot-bg@green.env: green would get feedbot.env's METRICS_PORT, like blue.
    host.colourPort('green', undefined);
    host.colourPort('blue', undefined);
    host.behave('green', 0);

    const run = await host.run();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('blue and green both get METRICS_PORT=9464');
    expect(host.actions()).toEqual([]);

    // Given on the command line instead, the ports are used as given.
    const given = await host.run(['--blue-port', String(host.ports.blue), '--green-port', String(host.ports.green)]);
    expect(given.status, given.stderr).toBe(0);
    expect(host.isRunning(GREEN)).toBe(true);
  });

  it('refuses, starting nothing, when something already answers on the new colour’s port', async () => {
    const host = await Host.create();
    await host.running('blue');
    host.behave('green', 0);
    const squatter = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi')).listen(host.ports.green, '127.0.0.1');
    try {
      await until('squatter listening', () => squatter.listening);
      const run = await host.run();
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`something already answers on 127.0.0.1:${host.ports.green}`);
      expect(host.actions()).toEqual([]);
      expect(host.isRunning(BLUE)).toBe(true);
    } finally {
      squatter.close();
    }
  });

  it('refuses wrong usage with status 2', async () => {
    const host = await Host.create();
    for (const args of [['--timeout', '0'], ['--timeout', 'soon'], ['--interval', 'x'], ['--bogus'], ['--unit']]) {
      const run = await host.run(args);
      expect(run.status, args.join(' ')).toBe(2);
    }
    expect(host.calls()).toEqual([]);
    const help = await host.run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage (as root: it runs systemctl): blue-green.sh [options]');
  });
});
