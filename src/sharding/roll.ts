/**
 * `node dist/src/sharding/roll.js <manager pid>`: asks a running `npm run start:sharded` for a
 * rolling restart, by sending SIGUSR2 to its manager process. The same as `kill -USR2 <pid>`,
 * except that it refuses a pid that is not a shard manager: SIGUSR2 ends any other Node process,
 * a shard process among them. The manager's log tells how the roll goes ("rolling restart ...").
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Why `pid` must not get the signal, or undefined when it is a shard manager (Linux's /proc; elsewhere not checked). */
export function notAManager(pid: number, readCmdline: (pid: number) => string | undefined = procCmdline): string | undefined {
  const cmdline = readCmdline(pid);
  if (cmdline === undefined) return undefined;
  const args = cmdline.split('\0').filter(Boolean);
  if (args.length === 0) return `process ${pid} is not running`;
  if (args.some((arg) => /(^|\/)sharded\.(js|ts)$/.test(arg))) return undefined;
  return `process ${pid} is not a shard manager (npm run start:sharded runs dist/src/sharded.js): ${args.join(' ').slice(0, 200)}`;
}

function procCmdline(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function main(argv: string[]): number {
  const arg = argv[0];
  if (!arg || !/^\d{1,9}$/.test(arg) || Number(arg) < 1) {
    console.error('Usage: node dist/src/sharding/roll.js <pid of the shard manager (npm run start:sharded)>');
    return 2;
  }
  const pid = Number(arg);
  const refusal = notAManager(pid);
  if (refusal) {
    console.error(`Not sent: ${refusal}`);
    return 1;
  }
  try {
    process.kill(pid, 'SIGUSR2');
  } catch (error) {
    console.error(`Could not signal process ${pid}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  console.log(`Rolling restart requested (SIGUSR2 to ${pid}): its log says "rolling restart done" once every shard process was replaced.`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));
