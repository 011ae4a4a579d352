/**
 * Preloaded into a measured child process (`--import`): on an IPC `memory` message it runs a full
 * garbage collection (when started with --expose-gc) and answers with process.memoryUsage().
 * It changes nothing else in the process it is loaded into.
 */
if (process.send) {
  process.on('message', (message: unknown) => {
    if (message !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      gc();
      gc();
    }
    process.send?.({ memory: process.memoryUsage(), gc: Boolean(gc) });
  });
  // The IPC channel must not keep a process alive that would otherwise exit.
  process.channel?.unref();
}
