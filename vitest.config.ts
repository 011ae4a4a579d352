import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Workspace packages are imported by name and resolved to their TypeScript sources through the
// `@feedbot/source` export condition (the same one tsx gets through --conditions).
const conditions = ['@feedbot/source', 'import', 'module', 'node', 'default'];

/**
 * FEEDBOT_MATRIX=1 (.ci/run, on the Node versions of the matrix besides the machine's own): the
 * stories that orchestrate many bot processes, nginx, systemd units or a Prometheus server for a
 * minute each are left out there. What they prove (deploys, rolls, resharding, the monitoring
 * kit) is about processes and servers, not the Node version; every one runs on the machine's
 * Node, and every Node still runs a real bot process end to end (test/e2e's other stories).
 */
function matrixExclusions(): string[] {
  if (process.env.FEEDBOT_MATRIX !== '1') return [];
  return [
    'test/e2e/deploy-overlap.test.ts',
    'test/e2e/sharded-deploy.test.ts',
    'test/e2e/sharded-rolling.test.ts',
    'test/e2e/replicas-rolling.test.ts',
    'test/e2e/monitoring-queries.test.ts',
    'test/sharding/roll.test.ts',
    'test/deploy/**',
  ];
}

export default defineConfig({
  resolve: { conditions },
  // Vitest hands ssr.resolve.conditions to Node as --conditions flags. Without 'import' there: Node
  // adds it to ESM imports itself, and with it CommonJS require() picks ESM entry points (pg's
  // require('pg-pool') then gets a module namespace instead of the Pool class).
  // Nor 'module': a bundlers' condition Node never sets, under which @opentelemetry/api offers an
  // ESM build with extensionless imports that Node cannot load.
  ssr: { resolve: { conditions: conditions.filter((c) => c !== 'import' && c !== 'module'), externalConditions: ['@feedbot/source'] } },
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Tests start real servers on 127.0.0.1; forks keep each file's sockets and timers apart.
    pool: 'forks',
    // At least two files at a time. Vitest's default, one worker fewer than the cores, is a single
    // worker on a two-core machine (CI): the suite would run one file at a time, and most files spend
    // their time waiting on child processes, sockets and timers, not on the CPU. Files take free
    // ports and their own temp folders, and dist/ builds take turns (test/helpers/build.ts).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    restoreMocks: true,
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...matrixExclusions()] } },
      // The command tests again, each interaction signed and POSTed to POST /interactions
      // (INTERACTIONS_MODE=http) instead of dispatched as from the gateway: one suite, two transports.
      { extends: true, test: { name: 'commands over http', include: ['test/bot/**/*.test.ts'], env: { FEEDBOT_TEST_TRANSPORT: 'http' } } },
    ],
  },
});
