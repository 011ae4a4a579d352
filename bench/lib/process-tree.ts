/**
 * A child process started for its start-up time and resident memory: time from spawn to a log
 * line, then VmRSS (from /proc, Linux only) of the process and of everything it started — a
 * wrapper such as tsx's CLI runs the bot in a second node process, and both hold memory.
 * The child leads its own process group and is stopped as a group: npm does not pass SIGTERM on
 * to the script it runs, so signalling npm alone would leave the bot running.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface TreeMemory {
  /** VmRSS of the last process of the chain, the bot itself (bytes). */
  leafRss: number;
  /** VmRSS summed over the spawned process and all its descendants (bytes). */
  treeRss: number;
  processes: number;
}

export interface TimedChild {
  /** Milliseconds from spawn to the first line matching readyWhen. */
  ready: Promise<number>;
  output: string[];
  memory(): TreeMemory;
  stop(): Promise<void>;
}

function rssOf(pid: number): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(text)?.[1] ?? NaN) * 1024;
}

function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The process and its descendants, parents first. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...childrenOf(out[i]!));
  return out;
}

export function spawnTimed(opts: { command: string; args: string[]; cwd: string; env: Record<string, string>; readyWhen: (line: string) => boolean }): TimedChild {
  const t0 = performance.now();
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? opts.cwd, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  let exited = false;
  // 'close': every process holding the output pipes is gone, not only the one we started.
  const exit = new Promise<void>((resolve) => child.once('close', () => ((exited = true), resolve())));
  const ready = new Promise<number>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (output.length < 200) output.push(line);
        if (opts.readyWhen(line)) resolve(performance.now() - t0);
      });
    }
    void exit.then(() => reject(new Error(`exited before READY:\n${output.slice(-20).join('\n')}`)));
  });
  ready.catch(() => undefined);
  return {
    ready,
    output,
    memory() {
      const pids = tree(child.pid!);
      const rss = pids.map(rssOf);
      return { leafRss: rss.at(-1)!, treeRss: rss.reduce((a, b) => a + b, 0), processes: pids.length };
    },
    async stop() {
      if (exited) return;
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name);
        } catch {
          // The group is already gone.
        }
      };
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
