/**
 * CPU time a process has used, from /proc/<pid>/stat (Linux): user + system time of all its
 * threads (the main thread, libuv's pool, V8's GC and compiler threads). A throughput figure
 * divided by it is "per core", whatever else shares the machine: another process taking the
 * cores slows the run down but does not change the CPU time each interaction costs.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK`: the unit of utime and stime (100 on every Linux we run on). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
    const parsed = Number(out);
    ticksPerSecond = Number.isInteger(parsed) && parsed > 0 ? parsed : 100;
  }
  return ticksPerSecond;
}

/** Seconds of CPU the process has used so far (resolution: one clock tick, 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the name.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / clockTicks();
}

/** CPU seconds of several processes together (the replicas of one bot). */
export function cpuSecondsOf(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}
