/**
 * The deployment examples (docs/deploy/) and the architecture notes stay true to the code: the
 * StatefulSet's script gives each pod its shards, the units start what npm starts, every
 * variable they set is one the configuration reads (and the whole set is a valid configuration),
 * and every link and path the docs cite exists. Plain text checks: no YAML or INI parser.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../src/config.js';
import { parseShardIds } from '../src/sharding/shard-ids.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const DOCS = ['docs/ARCHITECTURE.md', 'docs/deploy/README.md'];
const EXAMPLES = ['docs/deploy/kubernetes/statefulset.yaml', 'docs/deploy/systemd/feedbot@.service', 'docs/deploy/systemd/feedbot-sharded.service', 'docs/deploy/systemd/feedbot.env.example'];
const CONFIG_NAMES = new Set(Object.keys(ConfigSchema.shape));
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** Stand-ins for what the examples take from a Secret or leave for the operator to fill in. */
const SECRETS: Record<string, string> = {
  DISCORD_TOKEN: `${Buffer.from('123456789012345678').toString('base64')}.abcdef.ghijklmnop`,
  KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 7).toString('base64'),
  DATABASE_URL: 'postgres://feedbot:pw@postgres:5432/feedbot',
};

function firstNumber(rel: string, pattern: RegExp): number {
  const found = pattern.exec(read(rel))?.[1];
  if (found === undefined) throw new Error(`${pattern} not found in ${rel}`);
  return Number(found.replaceAll('_', ''));
}

/**
 * The command an npm script runs. The long-running scripts `exec` it, so that a signal to npm's
 * pid reaches the program (sh -c would not pass it on); the examples run it without npm.
 */
function command(script: string | undefined): string {
  expect(script, 'npm script').toMatch(/^exec node /);
  return script!.slice('exec '.length);
}

/** `node <args>` of an npm script, as the examples run it without npm. */
function nodeArgs(script: string | undefined): string {
  return command(script).slice('node '.length);
}

// --- Kubernetes --------------------------------------------------------------------------------

const statefulSet = (() => {
  const text = read('docs/deploy/kubernetes/statefulset.yaml');
  const doc = text.split(/^---$/m).find((d) => /^kind: StatefulSet$/m.test(d));
  if (!doc) throw new Error('no StatefulSet in statefulset.yaml');
  return doc;
})();

function yamlValue(doc: string, key: string): string {
  const value = new RegExp(`^\\s*${key.replaceAll('.', '\\.')}:\\s*(.+?)\\s*$`, 'm').exec(doc)?.[1];
  if (value === undefined) throw new Error(`${key} not found`);
  return value.replace(/^"(.*)"$/, '$1');
}

/** The `- |` block under `args:`, dedented. */
function containerScript(doc: string): string {
  const lines = doc.split('\n');
  const start = lines.findIndex((line, i) => /^\s*args:\s*$/.test(line) && /^\s*- \|\s*$/.test(lines[i + 1] ?? ''));
  if (start < 0) throw new Error('no `args: - |` block');
  const body: string[] = [];
  let indent: number | undefined;
  for (const line of lines.slice(start + 2)) {
    const own = line.length - line.trimStart().length;
    if (line.trim() === '') {
      body.push('');
      continue;
    }
    if (indent !== undefined && own < indent) break;
    indent ??= own;
    body.push(line.slice(indent));
  }
  return body.join('\n').trim();
}

/** `- name: X` followed by `value: v` (a string) or `valueFrom:` (undefined: from a Secret). */
function containerEnv(doc: string): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  for (const m of doc.matchAll(/^(\s*)- name: ([A-Z][A-Z0-9_]*)\s*\n\1 {2}(?:value: (.*)|valueFrom:)/gm)) {
    env.set(m[2]!, m[3]?.trim().replace(/^"(.*)"$/, '$1'));
  }
  return env;
}

const script = containerScript(statefulSet);
const execLine = script.split('\n').at(-1)!;

/** Runs the script as pod `hostname` would, stopping before node starts. */
function shardIdsOf(hostname: string) {
  const probe = script.replace(execLine, 'echo "$SHARD_IDS"');
  return spawnSync('sh', ['-c', probe], { env: { PATH: process.env.PATH, HOSTNAME: hostname }, encoding: 'utf8' });
}

describe('docs/deploy/kubernetes/statefulset.yaml', () => {
  const name = yamlValue(statefulSet, 'name');
  const replicas = Number(yamlValue(statefulSet, 'replicas'));
  const env = containerEnv(statefulSet);
  const shardCount = Number(env.get('SHARD_COUNT'));
  const pods = Array.from({ length: replicas }, (_, k) => `${name}-${k}`);

  it('gives pod k shards 4k..4k+3 of 16', () => {
    expect([name, replicas, shardCount]).toEqual(['feedbot', 4, 16]);
    const ranges = pods.map((pod) => {
      const run = shardIdsOf(pod);
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.trim();
    });
    expect(ranges).toEqual(['0-3', '4-7', '8-11', '12-15']);
  });

  it('runs every shard of SHARD_COUNT in exactly one pod', () => {
    const ids = pods.flatMap((pod) => parseShardIds(shardIdsOf(pod).stdout.trim()));
    expect(ids).toEqual(Array.from({ length: shardCount }, (_, i) => i));
  });

  it('stops a pod whose name ends in no ordinal', () => {
    for (const hostname of ['feedbot', 'feedbot-x', '']) {
      const run = shardIdsOf(hostname);
      expect(run.status, hostname).not.toBe(0);
      expect(run.stderr).toContain('no pod ordinal');
    }
  });

  it('execs what the image and npm start run, so node gets SIGTERM', () => {
    const cmd = JSON.parse(/^CMD (\[.*\])\s*$/m.exec(read('Dockerfile'))?.[1] ?? '[]') as string[];
    expect(cmd.join(' ')).toBe(command(scripts.start));
    expect(execLine).toBe(scripts.start);
    expect(yamlValue(statefulSet, 'command')).toBe('["/bin/sh", "-c"]');
  });

  it('sets, for every pod, a configuration the bot accepts', () => {
    for (const [k, pod] of pods.entries()) {
      const values = Object.fromEntries([...env].map(([key, value]) => [key, value ?? SECRETS[key]]));
      const config = loadConfig({ ...values, SHARD_IDS: shardIdsOf(pod).stdout.trim() });
      expect(config.SHARD_COUNT).toBe(16);
      expect(config.SHARD_IDS).toEqual([0, 1, 2, 3].map((i) => 4 * k + i));
      expect(config.DATABASE_URL).toMatch(/^postgres:\/\//);
    }
  });

  it('points probes and Prometheus at the ops listener and waits for the drain', () => {
    const port = env.get('METRICS_PORT');
    expect(env.get('METRICS_HOST')).toBe('0.0.0.0');
    expect(yamlValue(statefulSet, 'containerPort')).toBe(port);
    expect(yamlValue(statefulSet, 'prometheus.io/port')).toBe(port);
    expect(yamlValue(statefulSet, 'prometheus.io/path')).toBe('/metrics');
    expect(statefulSet).toMatch(/livenessProbe:\s*\n\s*httpGet:\s*\n\s*path: \/healthz\s*\n\s*port: metrics/);
    expect(statefulSet).toMatch(/readinessProbe:\s*\n\s*httpGet:\s*\n\s*path: \/readyz\s*\n\s*port: metrics/);
    const drainMs = firstNumber('src/app.ts', /drainTimeoutMs \?\? ([\d_]+)/);
    expect(Number(yamlValue(statefulSet, 'terminationGracePeriodSeconds')) * 1000).toBeGreaterThan(drainMs + 5_000);
  });
});

// --- systemd -----------------------------------------------------------------------------------

/** `Key=Value` lines (comments and sections dropped); a key set twice keeps both values. */
function unitSettings(rel: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of read(rel).split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  }
  return settings;
}

const one = (settings: Map<string, string[]>, key: string) => {
  const values = settings.get(key) ?? [];
  expect(values, key).toHaveLength(1);
  return values[0]!;
};

/** Environment=NAME=value lines, with %i standing for the instance name. */
function unitEnvironment(settings: Map<string, string[]>, instance = ''): Record<string, string> {
  return Object.fromEntries((settings.get('Environment') ?? []).map((e) => e.replaceAll('%i', instance).split(/=(.*)/s).slice(0, 2)));
}

const envFile = (() => {
  const entries = read('docs/deploy/systemd/feedbot.env.example')
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!.trim()] as const);
  return Object.fromEntries(entries);
})();

/** The file a `dist/…/x.js` entry is compiled from: tsconfig.build.json maps rootDir `.` to `dist`. */
function sourceOf(entry: string): string {
  const build = read('tsconfig.build.json');
  expect(build).toMatch(/"rootDir": "\."/);
  expect(build).toMatch(/"outDir": "dist"/);
  return entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
}

describe('docs/deploy/systemd', () => {
  const template = unitSettings('docs/deploy/systemd/feedbot@.service');
  const sharded = unitSettings('docs/deploy/systemd/feedbot-sharded.service');

  it('starts what npm start and npm run start:sharded start, from sources that exist', () => {
    for (const [unit, script] of [
      [template, scripts.start],
      [sharded, scripts['start:sharded']],
    ] as const) {
      const [node, ...args] = one(unit, 'ExecStart').split(' ');
      expect(node).toMatch(/^\/\S+\/node$/);
      expect(args.join(' ')).toBe(nodeArgs(script));
      const entry = args.find((a) => a.startsWith('dist/'))!;
      expect(existsSync(path.join(ROOT, sourceOf(entry))), sourceOf(entry)).toBe(true);
    }
    expect(scripts['start:sharded']).toBe('exec node --enable-source-maps dist/src/sharded.js');
  });

  it('takes the range from the instance name: feedbot@0-3.service runs SHARD_IDS=0-3', () => {
    expect(unitEnvironment(template, '0-3')).toMatchObject({ SHARD_IDS: '0-3' });
    expect(unitEnvironment(template, '12-15')).toMatchObject({ SHARD_IDS: '12-15' });
    // EnvironmentFile= overrides Environment=: the shared file must not hold the range.
    expect(envFile).not.toHaveProperty('SHARD_IDS');
    expect(template.get('EnvironmentFile')?.[0]).toBe('/etc/feedbot/feedbot.env');
    expect(one(sharded, 'EnvironmentFile')).toBe('/etc/feedbot/feedbot.env');
  });

  it('gives every instance and host a configuration the bot accepts', () => {
    const filled = Object.fromEntries(Object.entries(envFile).map(([key, value]) => [key, value || SECRETS[key]]));
    for (const [settings, instance, ids] of [
      [template, '0-3', [0, 1, 2, 3]],
      [template, '12-15', [12, 13, 14, 15]],
      [sharded, '', [0, 1, 2, 3, 4, 5, 6, 7]],
    ] as const) {
      const config = loadConfig({ ...unitEnvironment(settings, instance), ...filled });
      expect(config.SHARD_COUNT).toBe(16);
      expect(config.SHARD_IDS).toEqual(ids);
    }
  });

  it('stops with SIGTERM and waits longer than the drain', () => {
    const drainMs = firstNumber('src/app.ts', /drainTimeoutMs \?\? ([\d_]+)/);
    const managerStopMs = firstNumber('src/sharding/manager.ts', /STOP_TIMEOUT_MS = ([\d_]+)/);
    const seconds = (value: string) => Number(/^(\d+)s$/.exec(value)?.[1]) * 1000;
    for (const unit of [template, sharded]) {
      expect(one(unit, 'KillSignal')).toBe('SIGTERM');
      expect(one(unit, 'Restart')).toBe('on-failure');
      expect(one(unit, 'NoNewPrivileges')).toBe('yes');
      expect(one(unit, 'ProtectSystem')).toBe('strict');
    }
    expect(seconds(one(template, 'TimeoutStopSec'))).toBeGreaterThan(drainMs);
    // The manager itself gives each shard process this long before SIGKILL.
    expect(one(sharded, 'KillMode')).toBe('mixed');
    expect(seconds(one(sharded, 'TimeoutStopSec'))).toBeGreaterThan(managerStopMs);
  });

  it('lets the SQLite key store write where the example puts it', () => {
    const file = /^sqlite:\/\/(\/.+)$/.exec(envFile.DATABASE_URL ?? '')?.[1];
    expect(file).toBeDefined();
    for (const unit of [template, sharded]) {
      expect(one(unit, 'ReadWritePaths')).toBe(path.posix.dirname(file!));
      expect(`/var/lib/${one(unit, 'StateDirectory')}`).toBe(path.posix.dirname(file!));
    }
  });
});

// --- names, links and paths --------------------------------------------------------------------

describe('deployment examples and docs', () => {
  it('set only variables the configuration reads', () => {
    const used = new Set([
      ...containerEnv(statefulSet).keys(),
      ...[...script.matchAll(/export ([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!),
      ...Object.keys(unitEnvironment(unitSettings('docs/deploy/systemd/feedbot@.service'))),
      ...Object.keys(unitEnvironment(unitSettings('docs/deploy/systemd/feedbot-sharded.service'))),
      ...Object.keys(envFile),
    ]);
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((n) => !CONFIG_NAMES.has(n))).toEqual([]);
    // The one variable the script reads that the bot does not: set by Kubernetes.
    expect(new Set([...script.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]))).toEqual(new Set(['HOSTNAME']));
  });

  it.each(DOCS)('%s: every relative link resolves, anchors included', (doc) => {
    const broken: string[] = [];
    for (const [, target] of withoutCode(read(doc)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [file, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file));
      if (!existsSync(path.join(ROOT, resolved))) broken.push(`${target} (no ${resolved})`);
      else if (anchor !== undefined && !headingSlugs(read(resolved)).has(anchor)) broken.push(`${target} (no heading #${anchor})`);
    }
    expect(broken).toEqual([]);
  });

  it.each([...DOCS, ...EXAMPLES])('%s: every repository path it names exists', (doc) => {
    const named = new Set([...read(doc).matchAll(/(?<![\w/.])((?:src|commands|docs|test|packages|bench)\/[\w./@-]*\.(?:ts|md|yaml|service|example))/g)].map((m) => m[1]!));
    expect([...named].filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });
});

function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    let slug = base;
    for (let n = 1; slugs.has(slug); n++) slug = `${base}-${n}`;
    slugs.add(slug);
  }
  return slugs;
}
