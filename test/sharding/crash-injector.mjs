// Loaded with NODE_OPTIONS=--import into the shard manager of test/e2e/manager-death.test.ts:
// a way to make the real manager crash on demand. Shard processes (they have an IPC channel)
// load it too and ignore it.
import process from 'node:process';

if (typeof process.send !== 'function') {
  // An uncaught exception, thrown from a signal handler.
  process.on('SIGUSR2', () => {
    throw new Error('injected crash (uncaught exception)');
  });
  // An unhandled rejection.
  process.on('SIGWINCH', () => {
    void Promise.reject(new Error('injected crash (unhandled rejection)'));
  });
}
