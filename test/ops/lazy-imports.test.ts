/**
 * Start-up: what a configuration does not use is not loaded. The bot's entry runs with
 * an empty environment: it loads every module it imports statically, then stops at the
 * configuration check, so the packages it resolved are exactly what every start pays for. The
 * PostgreSQL and Redis clients (and their Keyv adapters) load only for a store or REDIS_URL that
 * names them, prom-client only with METRICS_PORT or under a shard manager. feedbot's own undici
 * (discord.js has its copies) loads at the first feed API request, and does load then.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Runs `args` (a script and its arguments) under the package-logging hook; its stderr. */
function packagesLoadedBy(args: string[]): Promise<{ packages: Set<string>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx/esm', '--import', './test/ops/fixtures/log-packages.mjs', '--conditions=@feedbot/source', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      const packages = new Set([...stderr.matchAll(/^PKG (\S+)$/gm)].map((m) => m[1]!));
      resolve({ packages, stderr });
    });
  });
}

const packagesLoadedByEntry = () => packagesLoadedBy(['src/index.ts']);

test('a start loads neither the PostgreSQL and Redis clients nor prom-client unless configured, nor feedbot\'s undici', { timeout: 90_000 }, async () => {
  const { packages, stderr } = await packagesLoadedByEntry();
  // It did get through the static imports to the configuration check.
  expect(stderr).toContain('DISCORD_TOKEN is required');
  expect(packages.has('discord.js'), stderr).toBe(true);
  for (const lazy of ['pg', '@redis/client', '@keyv/postgres', '@keyv/redis', 'prom-client', 'undici']) {
    expect(packages.has(lazy), `${lazy} was loaded`).toBe(false);
  }
});

test('undici loads at the first feed API request, and the request is made with it', { timeout: 90_000 }, async () => {
  const { stderr } = await packagesLoadedBy(['test/ops/fixtures/first-request.ts']);
  const before = stderr.slice(0, stderr.indexOf('REQUEST\n'));
  expect(stderr, stderr).toContain('ANSWER 200 ok');
  expect(before, stderr).toContain('PKG discord.js');
  expect(before).not.toMatch(/^PKG undici$/m);
  expect(stderr).toMatch(/^PKG undici$/m);
});
