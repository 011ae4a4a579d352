/**
 * @feedbot/playground: the stack harness (sandbox + Discord emulator + the real bot process) that
 * `npm run demo` and the end-to-end tests share, and the demo itself.
 */
export * from './stack.js';
export { startDemo, DemoSetupError, DEFAULT_DEMO_DIR, DEFAULT_DEMO_PORT, DEFAULT_SIMULATE_MS } from './demo.js';
export type { DemoOptions, RunningDemo, AutoKeyResult } from './demo.js';
export { DataDirLockedError } from './data-lock.js';
export { startPostgres, startRedis, serverBinariesMissing, missingServer, freePort, type LocalServer, type ServerKind } from './servers.js';
export { startNginx, missingNginx, type LoadBalancer } from './nginx.js';
export { BotGroup, type RunningBot, type ExitResult } from './bot-group.js';
