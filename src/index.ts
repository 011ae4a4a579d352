/**
 * feedbot's entry point (`npm start`). It turns on Node's module compile cache, then loads the bot
 * (main.ts). The cache must be on before the bot's modules are compiled, and an ES module's static
 * imports are all compiled before its body runs: hence this file, with no static import of the bot.
 *
 * module.enableCompileCache exists from Node 22.1 (absent on Node 20: the bot starts without it).
 * With no directory it uses NODE_COMPILE_CACHE, else <os temp dir>/node-compile-cache: never the
 * checkout. A stale or unwritable cache only costs the saving: Node checks each entry's hash.
 */
import module from 'node:module';

const compileCache = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
try {
  compileCache?.();
} catch {
  // A cache that cannot be set up costs start-up time, not the start.
}

await import('./main.js');
