/**
 * Test helpers for the Prometheus exposition: a strict-enough parser of the text format (0.0.4),
 * and promtool — Debian's `prometheus` package — found on PATH, with the suite's skip rule:
 * absent locally, the test is skipped with a message; absent in CI (CI=true), it fails.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → type (`counter`, `gauge`, `histogram`…). */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { types, samples };
}

/** Samples of one metric (exact sample name, e.g. `feedbot_interactions_total`) whose labels include `labels`. */
export function find(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export function sum(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  return find(e, name, labels).reduce((total, s) => total + s.value, 0);
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface Tool {
  /** Skip the test: absent, and not in CI. */
  skip: boolean;
  /** The executable; throws in CI when absent, so the test fails instead of passing unnoticed. */
  path(): string;
}

export function prometheusTool(name: 'promtool' | 'prometheus', what: string): Tool {
  const found = onPath(name);
  const ci = process.env.CI === 'true';
  if (!found && !ci) console.warn(`skipping ${what}: \`${name}\` is not installed (Debian: apt-get install prometheus; CI installs it through .ci/run)`);
  return {
    skip: !found && !ci,
    path() {
      if (!found) throw new Error(`${name} is required in CI (Debian package prometheus, installed by .ci/run) but is not on PATH`);
      return found;
    },
  };
}

/** `promtool check metrics` on an exposition; resolves with its exit code and output. */
export function promtoolCheck(promtool: string, exposition: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(promtool, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(exposition);
  });
}
