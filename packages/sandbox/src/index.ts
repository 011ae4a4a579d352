/**
 * The sandbox's programmatic API, for tests, the demo and the benchmarks:
 *
 *   const sandbox = await startSandbox({ dataDir, seed: 1, rateLimit: { limit: 1e6 } });
 *   const key = await sandbox.admin.generateKey(DEMO_GUILD_ID, ['feeds:read']);
 *   // https requests to sandbox.url with `ca: sandbox.caPem`
 *   await sandbox.close();
 */
export { startSandbox, DEFAULT_BODY_LIMIT, DEFAULT_DATA_DIR, DEFAULT_PORT, type RunningSandbox, type SandboxOptions } from './server.js';
export { ApiFaults, API_FAULT_KINDS, GARBAGE_BODY, type ApiFaultKind, type ApiFaultRule, type ApiFaultRuleInput } from './faults.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connection-guard.js';
export { SandboxAdmin, AdminError, DEFAULT_MAX_FEEDS_PER_SERVER, type GenerateKeyOptions, type KeyDescription, type NewPost } from './admin.js';
export { DEMO_CHANNEL_IDS, DEMO_FREE_GUILD_ID, DEMO_GUILD_ID, seedDemoData, type SeedResult } from './seed.js';
export { ManualClock, seededRandom, systemClock, startOfUtcDay, startOfUtcIsoWeek, type Clock } from './clock.js';
export { PLANS, type Plan, type FeedRecord, type PostRecord, type ServerRecord } from './records.js';
export { API_KEY_PATTERN, API_KEY_PREFIX } from './keys.js';
export { DEMO_KEY_FILE, startDemoSandbox, parseSandboxEnv, type DemoSandbox } from './main.js';
export { runCli, CLI_HELP } from './cli.js';
