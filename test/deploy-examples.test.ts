/**
 * The deployment examples (docs/deploy/) and the architecture notes stay true to the code: the
 * StatefulSet's script gives each pod its shards, the Deployments cover every shard once and
 * overlap old and new pods on update, the units start what npm starts, every variable they set
 * is one the configuration reads (and the whole set is a valid configuration), and every link
 * and path the docs cite exists. Plain text checks: no YAML or INI parser. The blue/green script
 * itself runs in test/deploy/blue-green.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../src/config.js';
import { parseShardIds } from '../src/shard-ids.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const DOCS = ['docs/ARCHITECTURE.md', 'docs/deploy/README.md'];
const EXAMPLES = [
  'docs/deploy/kubernetes/statefulset.yaml',
  'docs/deploy/kubernetes/deployments.yaml',
  'docs/deploy/systemd/feedbot@.service',
  'docs/deploy/systemd/feedbot-bg@.service',
  'docs/deploy/systemd/feedbot-sharded.service',
  'docs/deploy/systemd/feedbot.env.example',
  'docs/deploy/systemd/feedbot-bg@blue.env.example',
  'docs/deploy/systemd/feedbot-bg@green.env.example',
  'docs/deploy/systemd/blue-green.sh',
];
const COLOURS = ['blue', 'green'] as const;
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

// --- Kubernetes: one Deployment per range -------------------------------------------------------

const DEPLOYMENTS = 'docs/deploy/kubernetes/deployments.yaml';

/** A manifest's lines without its comments: what Kubernetes reads. */
function withoutComments(doc: string): string {
  return doc
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .trim();
}

function manifestOf(rel: string, kind: string): string[] {
  return read(rel)
    .split(/^---$/m)
    .filter((d) => new RegExp(`^kind: ${kind}$`, 'm').test(d));
}

describe('docs/deploy/kubernetes/deployments.yaml', () => {
  const header = read(DEPLOYMENTS).split(/^---$/m)[0]!;
  const deployments = manifestOf(DEPLOYMENTS, 'Deployment').map((doc) => {
    const env = containerEnv(doc);
    const range = env.get('SHARD_IDS') ?? '';
    return { doc, range, env, name: yamlValue(doc, 'name'), ids: parseShardIds(range), count: Number(env.get('SHARD_COUNT')) };
  });

  it('runs every shard of SHARD_COUNT in exactly one Deployment of one pod, named after its range', () => {
    expect(deployments.map((d) => d.name)).toEqual(['feedbot-0-3-of-16', 'feedbot-4-7-of-16', 'feedbot-8-11-of-16', 'feedbot-12-15-of-16']);
    for (const d of deployments) {
      expect(d.count).toBe(16);
      expect(d.name).toBe(`feedbot-${d.range}-of-${d.count}`);
      expect(yamlValue(d.doc, 'replicas')).toBe('1');
    }
    expect(deployments.flatMap((d) => d.ids)).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('differ in nothing but their range: the same image, settings and SHARD_COUNT', () => {
    const bodies = deployments.map((d) => withoutComments(d.doc).replaceAll(d.range, '<range>'));
    for (const body of bodies) expect(body).toBe(bodies[0]);
  });

  it('label and select each range on its own, with the labels the header commands use', () => {
    for (const d of deployments) {
      const doc = withoutComments(d.doc);
      expect(doc).toMatch(/selector:\s*\n\s*matchLabels:\s*\n\s*app\.kubernetes\.io\/name: feedbot\s*\n\s*app\.kubernetes\.io\/instance: (\S+)/);
      // metadata, selector and pod template: the Deployment's own name everywhere.
      expect([...doc.matchAll(/app\.kubernetes\.io\/instance: (\S+)/g)].map((m) => m[1])).toEqual([d.name, d.name, d.name]);
      expect([...doc.matchAll(/feedbot\/shards: "(.*)"/g)].map((m) => m[1])).toEqual([d.range, d.range]);
      expect([...doc.matchAll(/feedbot\/shard-count: "(.*)"/g)].map((m) => Number(m[1]))).toEqual([d.count, d.count]);
    }
    // The header's rollout, one range at a time, names every range and no other.
    const loop = /for shards in ([\d -]+); do/.exec(header)?.[1]?.trim().split(/\s+/);
    expect(loop).toEqual(deployments.map((d) => d.range));
    expect(header).toContain('kubectl rollout status deployment/feedbot-$shards-of-16');
    expect(header).toContain('kubectl delete deployment -l feedbot/shard-count=16');
  });

  it('updates by starting the new pod beside the old one, which stops only once the new one is ready', () => {
    for (const d of deployments) {
      expect(withoutComments(d.doc)).toMatch(/strategy:\s*\n\s*type: RollingUpdate\s*\n\s*rollingUpdate:\s*\n\s*maxSurge: 1\s*\n\s*maxUnavailable: 0\s*\n/);
      expect(Number(yamlValue(d.doc, 'minReadySeconds'))).toBeGreaterThan(0);
      expect(Number(yamlValue(d.doc, 'progressDeadlineSeconds'))).toBeGreaterThan(60);
    }
  });

  it('runs the image’s own command (npm start), so node gets SIGTERM', () => {
    for (const d of deployments) expect(withoutComments(d.doc)).not.toMatch(/^\s*(command|args):/m);
  });

  it('points the readiness probe at /readyz on METRICS_PORT, Prometheus at /metrics, and waits for the drain', () => {
    const drainMs = firstNumber('src/app.ts', /drainTimeoutMs \?\? ([\d_]+)/);
    for (const { doc, env } of deployments) {
      const port = env.get('METRICS_PORT');
      expect(env.get('METRICS_HOST')).toBe('0.0.0.0');
      expect(yamlValue(doc, 'containerPort')).toBe(port);
      expect(yamlValue(doc, 'prometheus.io/scrape')).toBe('true');
      expect(yamlValue(doc, 'prometheus.io/port')).toBe(port);
      expect(yamlValue(doc, 'prometheus.io/path')).toBe('/metrics');
      expect(doc).toMatch(/ports:\s*\n\s*- name: metrics\s*\n/);
      expect(doc).toMatch(/readinessProbe:\s*\n\s*httpGet:\s*\n\s*path: \/readyz\s*\n\s*port: metrics/);
      expect(doc).toMatch(/livenessProbe:\s*\n\s*httpGet:\s*\n\s*path: \/healthz\s*\n\s*port: metrics/);
      expect(Number(yamlValue(doc, 'terminationGracePeriodSeconds')) * 1000).toBeGreaterThan(drainMs + 5_000);
      // SIGTERM itself turns /readyz 503 and stops new interactions: no preStop sleep.
      expect(doc).not.toMatch(/preStop:/);
    }
  });

  it('sets, for every pod, a configuration the bot accepts, with the keys and claims in PostgreSQL', () => {
    for (const d of deployments) {
      const values = Object.fromEntries([...d.env].map(([key, value]) => [key, value ?? SECRETS[key]]));
      const config = loadConfig(values);
      expect(config.SHARD_COUNT).toBe(16);
      expect(config.SHARD_IDS).toEqual(d.ids);
      expect(config.DATABASE_URL).toMatch(/^postgres:\/\//);
      // Every pod, old and new, takes the same secrets from the same Secrets.
      expect(d.doc).toMatch(/- name: DISCORD_TOKEN\s*\n\s*valueFrom:\s*\n\s*secretKeyRef:\s*\n\s*name: feedbot\s*\n\s*key: discord-token/);
      expect(d.doc).toMatch(/- name: DATABASE_URL\s*\n\s*valueFrom:\s*\n\s*secretKeyRef:\s*\n\s*name: feedbot-database\s*\n\s*key: url/);
    }
  });

  it('defines the same headless Service as statefulset.yaml, so either file can be applied over the other', () => {
    const [ours] = manifestOf(DEPLOYMENTS, 'Service');
    const [theirs] = manifestOf('docs/deploy/kubernetes/statefulset.yaml', 'Service');
    expect(withoutComments(ours!)).toBe(withoutComments(theirs!));
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

/** NAME=value lines of an EnvironmentFile. */
function envEntries(rel: string): Record<string, string> {
  const entries = read(rel)
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!.trim()] as const);
  return Object.fromEntries(entries);
}

const envFile = envEntries('docs/deploy/systemd/feedbot.env.example');
const colourFile = (colour: (typeof COLOURS)[number]) => envEntries(`docs/deploy/systemd/feedbot-bg@${colour}.env.example`);

/** The file a `dist/…/x.js` entry is compiled from: tsconfig.build.json maps rootDir `.` to `dist`. */
function sourceOf(entry: string): string {
  const build = read('tsconfig.build.json');
  expect(build).toMatch(/"rootDir": "\."/);
  expect(build).toMatch(/"outDir": "dist"/);
  return entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
}

describe('docs/deploy/systemd', () => {
  const template = unitSettings('docs/deploy/systemd/feedbot@.service');
  const blueGreen = unitSettings('docs/deploy/systemd/feedbot-bg@.service');
  const sharded = unitSettings('docs/deploy/systemd/feedbot-sharded.service');

  it('starts what npm start and npm run start:sharded start, from sources that exist', () => {
    for (const [unit, script] of [
      [template, scripts.start],
      [blueGreen, scripts.start],
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
    for (const unit of [template, blueGreen, sharded]) {
      expect(one(unit, 'KillSignal')).toBe('SIGTERM');
      expect(one(unit, 'Restart')).toBe('on-failure');
      expect(one(unit, 'NoNewPrivileges')).toBe('yes');
      expect(one(unit, 'ProtectSystem')).toBe('strict');
    }
    expect(seconds(one(template, 'TimeoutStopSec'))).toBeGreaterThan(drainMs);
    // blue-green.sh's `systemctl stop` of the old colour waits this long for its drain.
    expect(seconds(one(blueGreen, 'TimeoutStopSec'))).toBeGreaterThan(drainMs);
    // The manager itself gives each shard process this long before SIGKILL.
    expect(one(sharded, 'KillMode')).toBe('mixed');
    expect(seconds(one(sharded, 'TimeoutStopSec'))).toBeGreaterThan(managerStopMs);
  });

  it('lets the SQLite key store write where the example puts it', () => {
    const file = /^sqlite:\/\/(\/.+)$/.exec(envFile.DATABASE_URL ?? '')?.[1];
    expect(file).toBeDefined();
    for (const unit of [template, blueGreen, sharded]) {
      expect(one(unit, 'ReadWritePaths')).toBe(path.posix.dirname(file!));
      expect(`/var/lib/${one(unit, 'StateDirectory')}`).toBe(path.posix.dirname(file!));
    }
  });

  it('runs each colour from its own checkout, with the shared feedbot.env and a port of its own', () => {
    expect(one(blueGreen, 'WorkingDirectory')).toBe('/opt/feedbot/%i');
    // The colour's file last: it wins over feedbot.env (and is optional).
    expect(blueGreen.get('EnvironmentFile')).toEqual(['/etc/feedbot/feedbot.env', '-/etc/feedbot/feedbot-bg@%i.env']);
    // Both colours hold the same shards at once during a deploy: nothing may keep them apart.
    expect(blueGreen.has('Conflicts')).toBe(false);
    const filled = Object.fromEntries(Object.entries(envFile).map(([key, value]) => [key, value || SECRETS[key]]));
    const ports = COLOURS.map((colour) => {
      expect(Object.keys(colourFile(colour))).toEqual(['METRICS_PORT']);
      const config = loadConfig({ ...unitEnvironment(blueGreen, colour), ...filled, ...colourFile(colour) });
      // One process for every shard of the bot, unless a drop-in sets the host's SHARD_IDS.
      expect(config.SHARD_COUNT).toBe(16);
      expect(config.SHARD_IDS).toBeUndefined();
      return config.METRICS_PORT;
    });
    expect(ports).toEqual([9464, 9465]);
  });

  it('ships blue-green.sh executable, reading the files the colour units read', () => {
    const rel = 'docs/deploy/systemd/blue-green.sh';
    const text = read(rel);
    expect(statSync(path.join(ROOT, rel)).mode & 0o111).toBe(0o111);
    expect(text.split('\n')[0]).toBe('#!/usr/bin/env bash');
    expect(text).toMatch(/^set -euo pipefail$/m);
    const unit = /^UNIT=\$\{FEEDBOT_BG_UNIT:-([\w-]+)\}$/m.exec(text)?.[1];
    const envDir = /^ENV_DIR=\$\{FEEDBOT_BG_ENV_DIR:-(\S+)\}$/m.exec(text)?.[1];
    expect(`${unit}@.service`).toBe('feedbot-bg@.service');
    const files = /for file in (.+); do$/m.exec(text)?.[1]?.split(' ').map((f) => f.replaceAll('"', '').replace('$ENV_DIR', envDir!).replace('$UNIT', unit!).replace('$colour', '%i'));
    expect(files).toEqual(blueGreen.get('EnvironmentFile')!.map((f) => f.replace(/^-/, '')));
    expect(text).toMatch(/systemctl stop "\$\(unit "\$old"\)"/);
  });

  it('rolls the shard processes on `systemctl reload feedbot-sharded`, and reloads no other unit', () => {
    expect(one(sharded, 'ExecReload')).toBe('/bin/kill -USR2 $MAINPID');
    expect(read('src/sharded.ts')).toMatch(/process\.on\('SIGUSR2'/);
    // SIGUSR2 ends a plain `npm start` process: its units must not send it.
    expect(template.has('ExecReload')).toBe(false);
    expect(blueGreen.has('ExecReload')).toBe(false);
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
      ...Object.keys(unitEnvironment(unitSettings('docs/deploy/systemd/feedbot-bg@.service'))),
      ...Object.keys(envFile),
      ...COLOURS.flatMap((colour) => Object.keys(colourFile(colour))),
      ...manifestOf(DEPLOYMENTS, 'Deployment').flatMap((doc) => [...containerEnv(doc).keys()]),
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
    const named = new Set([...read(doc).matchAll(/(?<![\w/.])((?:src|commands|docs|test|packages|bench)\/[\w./@-]*\.(?:ts|md|yaml|service|example|sh))/g)].map((m) => m[1]!));
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
