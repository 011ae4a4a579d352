/**
 * A measured child process: the real bot (or a baseline) started with `node --import tsx`, so
 * the pid we read is the node process itself, not a wrapper. The memory probe is preloaded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tsxUrl } from './tsx.js';

export interface ChildMemory {
  /** VmRSS from /proc (bytes), after a full GC. */
  rss: number;
  /** VmHWM: the peak resident set (bytes). */
  peakRss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  gc: boolean;
}

export interface MeasuredChild {
  pid: number;
  ready: Promise<void>;
  /** Lines the child wrote to stdout/stderr (kept for error messages). */
  output: string[];
  memory(): Promise<ChildMemory>;
  stop(): Promise<void>;
}

function procStatus(pid: number): { rss: number; peakRss: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peakRss: kb('VmHWM') };
}

export function spawnMeasured(opts: { entry: string; env: Record<string, string>; cwd: string; readyWhen: (line: string) => boolean }): MeasuredChild {
  const args = [
    '--expose-gc',
    '--conditions=@feedbot/source',
    '--import',
    tsxUrl('.'),
    '--import',
    new URL('./memory-probe.ts', import.meta.url).href,
    opts.entry,
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? opts.cwd, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output: string[] = [];
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const ready = new Promise<void>((resolve, reject) => {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (output.length < 200) output.push(line);
        if (opts.readyWhen(line)) resolve();
      });
    }
    void exit.then(() => reject(new Error(`child exited before READY:\n${output.slice(-20).join('\n')}`)));
  });
  ready.catch(() => undefined);
  return {
    pid: child.pid!,
    ready,
    output,
    memory() {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('memory probe did not answer')), 10_000);
        child.once('message', (message: { memory: NodeJS.MemoryUsage; gc: boolean }) => {
          clearTimeout(timer);
          const status = procStatus(child.pid!);
          const m = message.memory;
          resolve({ ...status, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, gc: message.gc });
        });
        child.send('memory');
      });
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
