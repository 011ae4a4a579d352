/**
 * The shipped compose.yaml, read by Debian's `docker-compose` (v1.29, what `apt-get install
 * docker-compose` gives) with a `.env` made from the shipped `.env.example`: `config -q` passes for
 * the default profile with the README's three required variables alone, and for each profile
 * with the variables compose.yaml's comments name for it. No container engine runs here; the
 * services' own start commands are run with `sh` against a stand-in for the image's entrypoint,
 * to show that a profile started without its password refuses to start instead of running
 * without one.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DUMMY_REQUIRED, missingProgram, onPath, operatorFolder, run } from './compose-files.js';

const skip = missingProgram('docker-compose', 'docker-compose');
if (skip) console.warn(skip);

const PG_PASSWORD = 'dummy-postgres-password';
const REDIS_PASSWORD = 'dummy-redis-password';

/** What compose.yaml's header names for each profile. */
const PROFILES = {
  postgres: { POSTGRES_PASSWORD: PG_PASSWORD, DATABASE_URL: `postgres://feedbot:${PG_PASSWORD}@postgres:5432/feedbot` },
  redis: { REDIS_PASSWORD, DATABASE_URL: `redis://:${REDIS_PASSWORD}@redis:6379/0` },
} as const;

interface Service {
  entrypoint?: string[] | string;
  command?: string[] | string;
  environment?: Record<string, string | null>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function folder(values: Record<string, string>): Promise<string> {
  const { dir, cleanup } = await operatorFolder(values, { compose: true });
  cleanups.push(cleanup);
  return dir;
}

/** `docker-compose` in `dir` with only PATH and HOME: .env is the only source of variables. */
function compose(dir: string, args: string[]) {
  return run('docker-compose', ['-f', 'compose.yaml', ...args], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
}

/** The resolved configuration (`docker-compose config`), parsed with the PyYAML docker-compose itself depends on. */
function resolved(dir: string, profile: string): { services: Record<string, Service> } {
  const config = compose(dir, ['--profile', profile, 'config']);
  expect(config.err).toBe('');
  const json = run('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], { cwd: dir, input: config.out });
  expect(json.err).toBe('');
  return JSON.parse(json.out) as { services: Record<string, Service> };
}

/**
 * Runs a service's entrypoint + command as its container would, with `sh`, the service's
 * environment, and a stand-in `docker-entrypoint.sh` (the official images' entrypoint) on PATH
 * that prints what it was asked to run.
 */
async function startService(dir: string, service: Service): Promise<{ code: number; out: string; err: string }> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'docker-entrypoint.sh'), '#!/bin/sh\necho "started: $*"\n');
  await chmod(join(bin, 'docker-entrypoint.sh'), 0o755);
  const words = (v: string[] | string | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  // `config` prints the file re-escaped ($$); a container gets each $$ as $.
  const argv = [...words(service.entrypoint), ...words(service.command)].map((word) => word.replaceAll('$$', '$'));
  expect(argv[0], 'the service starts through a shell that checks its password').toBe('sh');
  const environment = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, v ?? '']));
  return run(onPath('sh')!, argv.slice(1), { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}`, ...environment } });
}

describe.skipIf(skip !== undefined)('compose.yaml with a .env made from .env.example (docker-compose config)', () => {
  it('the default profile needs only the three required variables', async () => {
    const dir = await folder(DUMMY_REQUIRED);
    const result = compose(dir, ['config', '-q']);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
  });

  for (const [profile, values] of Object.entries(PROFILES)) {
    it(`--profile ${profile} with the variables compose.yaml names for it`, async () => {
      const dir = await folder({ ...DUMMY_REQUIRED, ...values });
      const result = compose(dir, ['--profile', profile, 'config', '-q']);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);

      const started = await startService(dir, resolved(dir, profile).services[profile]!);
      expect(started.err).toBe('');
      expect(started.code).toBe(0);
      expect(started.out).toMatch(/^started: \S/);
      if (profile === 'redis') expect(started.out).toContain(`--requirepass ${REDIS_PASSWORD}`);
    });

    it(`--profile ${profile} without its password: the configuration reads, the service refuses to start`, async () => {
      const dir = await folder(DUMMY_REQUIRED);
      expect(compose(dir, ['--profile', profile, 'config', '-q']).code).toBe(0);
      const started = await startService(dir, resolved(dir, profile).services[profile]!);
      expect(started.code).not.toBe(0);
      expect(started.out).not.toContain('started:');
      const variable = profile === 'postgres' ? 'POSTGRES_PASSWORD' : 'REDIS_PASSWORD';
      expect(started.err).toContain(`set ${variable} in .env`);
    });
  }
});
