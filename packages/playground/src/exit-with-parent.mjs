/**
 * Preloaded (`node --import`) into every program the playground starts (the bot, deploy-commands,
 * a shard manager): the program stops when the process that started it is gone, even when that
 * process was SIGKILLed and had no chance to stop it. The child runs in a process group of its
 * own (so signals reach whatever it starts), which also means nothing else would ever stop it.
 *
 * The parent holds the child's stdin, a pipe it never writes to. The kernel closes the pipe when
 * the parent dies, however it dies; the child then receives SIGTERM, as from a supervisor, and runs
 * its own clean shutdown. Should that hang, SIGKILL follows. Plain JavaScript: it also runs in
 * front of the compiled bot, where no TypeScript loader is present.
 */
import process from 'node:process';
import { setTimeout } from 'node:timers';

const GRACE_MS = 8000;

const stdin = process.stdin;
if (!stdin.isTTY) {
  const parentGone = () => {
    process.kill(process.pid, 'SIGTERM');
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), GRACE_MS).unref();
  };
  stdin.once('end', parentGone);
  stdin.once('error', parentGone);
  stdin.resume();
  // Watching the pipe must not keep the program running once it has nothing else to do.
  if (typeof stdin.unref === 'function') stdin.unref();
}
