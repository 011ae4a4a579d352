/**
 * The "Before and after" table `npm run bench -- --update-docs --before <results.json>` writes
 * into docs/BENCHMARKS.md, and the check that refuses a file that is not a bench results file.
 * Pure rendering from two small results: no scenario runs here.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { renderBeforeAfter } from '../../bench/lib/before-after.js';
import { END_MARKER, START_MARKER, updateDoc } from '../../bench/lib/markdown.js';
import type { BenchResults, Metric, ScenarioResult } from '../../bench/lib/report.js';
import { parseResults, readResults } from '../../bench/lib/results-file.js';

const machine = { cpuModel: 'AMD EPYC', cores: 2, totalMemoryMb: 24_106, platform: 'linux', kernel: '6.18', node: 'v20.20.2', v8: '11.3' };

function scenario(id: number, key: string, title: string, metrics: Metric[]): ScenarioResult {
  return { id, key, title, baseline: 'a baseline', params: {}, metrics, details: {}, notes: [], durationMs: 1_000 };
}

const keyStoreRow = (name: string, value: number, baseline: number): Metric => ({ name, unit: '/s', value, baseline, ratio: value / baseline, target: '≥ 0.8× baseline', met: value / baseline >= 0.8 });

// An older tree's partial run (`--only 1,5,6`), written before results recorded the commit: no
// scenario 8 or 10, no PostgreSQL rows, and scenario 5 measured over other guild counts.
const before: BenchResults = {
  generatedAt: '2026-11-28T07:23:43.160Z',
  quick: false,
  machine,
  durationMs: 90_000,
  scenarios: [
    scenario(1, 'interaction-overhead', 'Interaction overhead', [
      { name: 'p50 dispatch→callback', unit: 'ms', value: 0.2, baseline: 0.04, ratio: 5 },
      { name: 'interactions per second (1 core)', unit: '/s', value: 7_000, baseline: 14_000, ratio: 0.5 },
      { name: 'an old row gone since', unit: 'ms', value: 1, baseline: 1, ratio: 1 },
    ]),
    scenario(5, 'memory', 'Memory', [
      { name: 'RSS per extra guild (1→5000)', unit: 'KB', value: 5.5, baseline: 9.6, ratio: 0.57, target: '< 2 KB', met: false },
      { name: 'heap used per extra guild (1→5000)', unit: 'KB', value: 4.1, baseline: 7.7, ratio: 0.53 },
    ]),
    scenario(6, 'key-store', 'Key store', [keyStoreRow('sqlite: set per second', 880, 1_000), keyStoreRow('sqlite: get per second', 850, 1_000)]),
  ],
};

const after: BenchResults = {
  generatedAt: '2026-11-28T10:05:00.000Z',
  quick: false,
  machine: { ...machine, node: 'v20.20.2' },
  git: { commit: 'abc1234', dirty: false },
  durationMs: 800_000,
  scenarios: [
    scenario(1, 'interaction-overhead', 'Interaction overhead', [
      // 5 → 5.25: 5 % worse, within the 10 %; the rate 0.5 → 0.4: 20 % worse.
      { name: 'p50 dispatch→callback', unit: 'ms', value: 0.21, baseline: 0.04, ratio: 5.25 },
      { name: 'interactions per second (1 core)', unit: '/s', value: 6_000, baseline: 15_000, ratio: 0.4 },
      { name: 'a new row', unit: 'ms', value: 1, baseline: 2, ratio: 0.5 },
    ]),
    scenario(5, 'memory', 'Memory', [
      { name: 'RSS per extra guild (1→10000)', unit: 'KB', value: 1.8, baseline: 9.6, ratio: 0.19, target: '≤ 2 KB', met: true },
      { name: 'heap used per extra guild (1→10000)', unit: 'KB', value: 1.2, baseline: 7.7, ratio: 0.16 },
    ]),
    scenario(6, 'key-store', 'Key store', [
      keyStoreRow('sqlite: set per second', 900, 1_000),
      keyStoreRow('sqlite: get per second', 800, 1_000),
      keyStoreRow('postgres: set per second', 860, 1_000),
      { name: 'redis: get per second (skipped: no redis-server)', unit: '/s', value: null, baseline: null, ratio: null, target: '≥ 0.85× baseline', met: null },
    ]),
    scenario(8, 'startup', 'Start-up', [{ name: 'READY after spawn, median: compiled vs tsx CLI', unit: 'ms', value: 450, baseline: 1_000, ratio: 0.45 }]),
    scenario(10, 'http-interactions', 'HTTP interactions', [
      { name: 'RSS per extra guild (1→10000), HTTP vs gateway', unit: 'KB', value: 0.7, baseline: 6.7, ratio: null, target: '≤ 0.5 KB', met: false },
    ]),
  ],
};

/** The table's rows as cells, keyed by "scenario | metric". */
function rows(markdown: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| scenario ')) continue;
    const cells = line.slice(2, -2).split(' | ');
    out.set(`${cells[0]} | ${cells[1]}`, cells.slice(2));
  }
  return out;
}

describe('the before and after table', () => {
  const markdown = renderBeforeAfter(before, after);
  const table = rows(markdown);
  const row = (key: string) => {
    const cells = table.get(key);
    if (!cells) throw new Error(`no row "${key}" in:\n${markdown}`);
    // before, after, change, goal, met
    return cells;
  };

  it('names both runs, their commits (or that none was recorded) and which scenarios a partial run had', () => {
    expect(markdown).toContain('**Before**: run of 2026-11-28 07:23 UTC, commit not recorded, Node v20.20.2, scenarios 1, 5, 6 only.');
    expect(markdown).toContain('**After**: run of 2026-11-28 10:05 UTC, commit abc1234, Node v20.20.2.');
    const named = renderBeforeAfter(before, { ...after, git: { commit: 'abc1234', dirty: true } }, { beforeLabel: 'the tree of 3dec410' });
    expect(named).toContain('**Before** (the tree of 3dec410): run of 2026-11-28 07:23 UTC');
    expect(named).toContain('commit abc1234 with uncommitted changes');
  });

  it('compares figures with different guild counts in their names, and judges the goal on the after figure', () => {
    expect(row('5. Memory | RSS per extra server, gateway')).toEqual(['5.5 KB', '1.8 KB', '−3.7 KB (−67 %)', '≤ 2 KB', '✅']);
    expect(row('5. Memory | heap used per extra server, gateway')).toEqual(['4.1 KB', '1.2 KB', '−2.9 KB (−71 %)', '', '']);
    expect(row('10. HTTP interactions | RSS per extra server, HTTP mode')).toEqual(['—', '0.7 KB', '—', '≤ 0.5 KB', '❌']);
    expect(row('8. Start-up | READY after spawn, compiled ÷ tsx CLI')).toEqual(['—', '0.45×', '—', '≤ 0.5×', '✅']);
  });

  it('shows every backend of the key store, with a dash where one side lacks the row or skipped it', () => {
    expect(row('6. Key store | sqlite: set per second ÷ raw adapter')).toEqual(['0.88×', '0.9×', '+2 %', '≥ 0.85×', '✅']);
    expect(row('6. Key store | sqlite: get per second ÷ raw adapter')).toEqual(['0.85×', '0.8×', '−6 %', '≥ 0.85×', '❌']);
    expect(row('6. Key store | postgres: set per second ÷ raw adapter')).toEqual(['—', '0.86×', '—', '≥ 0.85×', '✅']);
    expect(row('6. Key store | redis: get per second ÷ raw adapter')).toEqual(['—', '—', '—', '≥ 0.85×', '—']);
  });

  it('holds scenario 1 to its own before: within 10 %, in the direction that is worse', () => {
    expect(row('1. Interaction overhead | p50 dispatch→callback, ratio')).toEqual(['5×', '5.25×', '+5 %', '≤ 5.5× (before +10 %)', '✅']);
    expect(row('1. Interaction overhead | interactions per second (1 core), ratio')).toEqual(['0.5×', '0.4×', '−20 %', '≥ 0.45× (before −10 %)', '❌']);
    expect(row('1. Interaction overhead | an old row gone since, ratio')).toEqual(['1×', '—', '—', '≤ 1.1× (before +10 %)', '—']);
    expect(row('1. Interaction overhead | a new row, ratio')).toEqual(['—', '0.5×', '—', 'within 10 % of before', '—']);
  });
});

describe('the generated section of docs/BENCHMARKS.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('carries the before and after table above the latest figures when a before is given, and not otherwise', () => {
    const doc = join(dir, 'BENCHMARKS.md');
    writeFileSync(doc, `# Benchmarks\n\n${START_MARKER}\n\nold figures\n\n${END_MARKER}\n\n## After\n`);
    updateDoc(doc, after, { before });
    const text = readFileSync(doc, 'utf8');
    expect(text).not.toContain('old figures');
    expect(text.indexOf('#### Before and after')).toBeGreaterThan(text.indexOf(START_MARKER));
    expect(text.indexOf('#### Before and after')).toBeLessThan(text.indexOf('#### 1. Interaction overhead'));
    expect(text.endsWith(`${END_MARKER}\n\n## After\n`)).toBe(true);
    updateDoc(doc, after);
    expect(readFileSync(doc, 'utf8')).not.toContain('Before and after');
  });
});

describe('reading a results file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes a results file as bench/run.ts writes it, older ones without the commit included', () => {
    const file = join(dir, 'before.json');
    writeFileSync(file, `${JSON.stringify(before, null, 2)}\n`);
    expect(readResults(file)).toEqual(before);
  });

  it('refuses what is not a results file with one line naming the file and what is wrong', () => {
    const fail = (text: string) => {
      try {
        parseResults(text, 'x.json');
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(fail('{"scenarios": [')).toMatch(/^x\.json is not JSON: /);
    expect(fail('{"name": "feedbot", "version": "1.0.0"}')).toMatch(/^x\.json is not a bench results file \(npm run bench writes one\): generatedAt: /);
    const broken = { ...before, scenarios: [{ ...before.scenarios[0], metrics: [{ name: 'p50', unit: 'ms', value: '0.2' }] }] };
    const message = fail(JSON.stringify(broken));
    expect(message).toContain('scenarios.0.metrics.0.value: ');
    expect(message).not.toContain('\n');
  });
});

describe('the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(import.meta.dirname, '..', '..');
  const tsx = (...args: string[]) =>
    promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['--conditions=@feedbot/source', ...args], { cwd: root, timeout: 60_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it('npm run bench refuses a --before that is not a results file before it runs anything', async () => {
    const bad = join(dir, 'package.json');
    writeFileSync(bad, '{"name": "feedbot"}');
    const out = join(dir, 'results.json');
    // --only 99 matches no scenario: were the file let through, the run would still be empty.
    const result = await tsx('bench/run.ts', '--only', '99', '--out', out, '--before', bad);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/package\.json is not a bench results file \(npm run bench writes one\): generatedAt: /)]);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('update-docs.ts --print shows the section with the table and leaves the document alone', async () => {
    const [beforeFile, afterFile, doc] = ['before.json', 'after.json', 'BENCHMARKS.md'].map((f) => join(dir, f)) as [string, string, string];
    writeFileSync(beforeFile, JSON.stringify(before));
    writeFileSync(afterFile, JSON.stringify(after));
    const text = `${START_MARKER}\n\nold figures\n\n${END_MARKER}\n`;
    writeFileSync(doc, text);
    const result = await tsx('bench/update-docs.ts', afterFile, '--before', beforeFile, '--before-label', 'the tree of 3dec410', '--doc', doc, '--print');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('**Before** (the tree of 3dec410): run of 2026-11-28 07:23 UTC');
    expect(result.stdout).toContain('| 5. Memory | RSS per extra server, gateway | 5.5 KB | 1.8 KB |');
    expect(readFileSync(doc, 'utf8')).toBe(text);
    // Without --print a partial after is refused: the document takes a full run's figures only.
    expect(await tsx('bench/update-docs.ts', afterFile, '--before', beforeFile, '--doc', doc)).toMatchObject({ code: 2 });
    expect(readFileSync(doc, 'utf8')).toBe(text);
  }, 60_000);
});
