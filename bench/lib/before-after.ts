/**
 * The "Before and after" table of docs/BENCHMARKS.md: the tracked figures from a run of an older
 * checkout (the before, often a partial `--only` run of an older bench) beside this run's, with
 * the change and the goal. Figures are found by scenario key (id as a fallback) and by a
 * pattern on the metric's name, because names carry sizes ("1→10000") that differ between runs
 * and older benches named some rows differently; a figure one side lacks shows as "—".
 */
import { num } from './format.js';
import type { BenchResults, Metric, ScenarioResult } from './report.js';
import { SCENARIOS } from '../scenarios/list.js';

type Figure = 'value' | 'ratio';

/** A goal on the after figure alone (a floor or a ceiling). */
interface Limit {
  at: 'most' | 'least';
  limit: number;
  text: string;
}

interface Tracked {
  scenario: { id: number; key: string };
  label: string;
  match: RegExp;
  figure: Figure;
  goal?: Limit;
}

const KEY_STORE_GOAL: Limit = { at: 'least', limit: 0.85, text: '≥ 0.85×' };

/** The tracked figures, in scenario order; scenario 1's rows are added per metric (see rowsOf). */
const TRACKED: Tracked[] = [
  {
    scenario: { id: 5, key: 'memory' },
    label: 'RSS per extra server, gateway',
    match: /^RSS per extra guild \(/,
    figure: 'value',
    goal: { at: 'most', limit: 2, text: '≤ 2 KB' },
  },
  { scenario: { id: 5, key: 'memory' }, label: 'heap used per extra server, gateway', match: /^heap used per extra guild \(/, figure: 'value' },
  ...(['sqlite', 'postgres', 'redis'] as const).flatMap((backend) =>
    (['set', 'get'] as const).map(
      (op): Tracked => ({
        scenario: { id: 6, key: 'key-store' },
        label: `${backend}: ${op} per second ÷ raw adapter`,
        // A backend whose server is not installed reports "… (skipped: reason)" with no figures.
        match: new RegExp(`^${backend}: ${op} per second(?: \\(skipped|$)`),
        figure: 'ratio',
        goal: KEY_STORE_GOAL,
      }),
    ),
  ),
  {
    scenario: { id: 8, key: 'startup' },
    label: 'READY after spawn, compiled ÷ tsx CLI',
    match: /^READY after spawn, median: compiled vs tsx CLI$/,
    figure: 'ratio',
    goal: { at: 'most', limit: 0.5, text: '≤ 0.5×' },
  },
  { scenario: { id: 8, key: 'startup' }, label: 'RSS at READY, compiled ÷ tsx CLI', match: /^RSS at READY, all processes: compiled vs tsx CLI$/, figure: 'ratio' },
  {
    scenario: { id: 10, key: 'http-interactions' },
    label: 'RSS per extra server, HTTP mode',
    match: /^RSS per extra guild \([^)]*\), HTTP vs gateway$/,
    figure: 'value',
    goal: { at: 'most', limit: 0.5, text: '≤ 0.5 KB' },
  },
  { scenario: { id: 10, key: 'http-interactions' }, label: 'heap used per extra server, HTTP mode', match: /^heap used per extra guild \([^)]*\), HTTP vs gateway$/, figure: 'value' },
];

/** Scenario 1 may not get slower: each ratio within 10 % of the before, in the worse direction. */
const OVERHEAD = { id: 1, key: 'interaction-overhead' };
const TOLERANCE = 0.1;

interface Row {
  scenario: string;
  label: string;
  unit: string;
  figure: Figure;
  before: number | null;
  after: number | null;
  goal: string;
  met: boolean | null | undefined;
}

function scenarioOf(results: BenchResults, which: { id: number; key: string }): ScenarioResult | undefined {
  return results.scenarios.find((s) => s.key === which.key) ?? results.scenarios.find((s) => s.id === which.id);
}

function pick(metric: Metric | undefined, figure: Figure): number | null {
  const v = metric?.[figure];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function title(before: BenchResults, after: BenchResults, which: { id: number; key: string }): string {
  const s = scenarioOf(after, which) ?? scenarioOf(before, which);
  return `${which.id}. ${s?.title ?? SCENARIOS.find((x) => x.key === which.key)?.title ?? which.key}`;
}

function trackedRow(before: BenchResults, after: BenchResults, t: Tracked): Row {
  const find = (r: BenchResults) => scenarioOf(r, t.scenario)?.metrics.find((m) => t.match.test(m.name));
  const [b, a] = [find(before), find(after)];
  const value = pick(a, t.figure);
  return {
    scenario: title(before, after, t.scenario),
    label: t.label,
    unit: a?.unit ?? b?.unit ?? '',
    figure: t.figure,
    before: pick(b, t.figure),
    after: value,
    goal: t.goal?.text ?? '',
    met: !t.goal ? undefined : value === null ? null : t.goal.at === 'most' ? value <= t.goal.limit : value >= t.goal.limit,
  };
}

/** Rates are better higher; every other scenario-1 figure is a time. */
const higherIsBetter = (unit: string) => unit === '/s';

function overheadRows(before: BenchResults, after: BenchResults): Row[] {
  const [b, a] = [scenarioOf(before, OVERHEAD), scenarioOf(after, OVERHEAD)];
  const names = [...new Set([...(a?.metrics ?? []), ...(b?.metrics ?? [])].filter((m) => pick(m, 'ratio') !== null).map((m) => m.name))];
  return names.map((name) => {
    const [mb, ma] = [b?.metrics.find((m) => m.name === name), a?.metrics.find((m) => m.name === name)];
    const unit = ma?.unit ?? mb?.unit ?? '';
    const [vb, va] = [pick(mb, 'ratio'), pick(ma, 'ratio')];
    const up = higherIsBetter(unit);
    const bound = vb === null ? null : vb * (up ? 1 - TOLERANCE : 1 + TOLERANCE);
    return {
      scenario: title(before, after, OVERHEAD),
      label: `${name}, ratio`,
      unit,
      figure: 'ratio',
      before: vb,
      after: va,
      goal: bound === null ? 'within 10 % of before' : up ? `≥ ${num(bound)}× (before −10 %)` : `≤ ${num(bound)}× (before +10 %)`,
      met: bound === null || va === null ? null : up ? va >= bound : va <= bound,
    };
  });
}

const minus = (text: string) => text.replace(/^-/, '−');

function shown(row: Row, v: number | null): string {
  if (v === null) return '—';
  return row.figure === 'ratio' ? `${minus(num(v))}×` : `${minus(num(v))} ${row.unit}`;
}

function change(row: Row): string {
  const { before: b, after: a } = row;
  if (b === null || a === null) return '—';
  const percent = b > 0 ? Math.round((a / b - 1) * 100) : null;
  const pct = percent === null ? '' : percent === 0 ? '±0 %' : `${percent > 0 ? '+' : '−'}${Math.abs(percent)} %`;
  if (row.figure === 'ratio') return pct || '—';
  const diff = a - b;
  const abs = `${diff > 0 ? '+' : diff < 0 ? '−' : '±'}${num(Math.abs(diff))} ${row.unit}`;
  return pct ? `${abs} (${pct})` : abs;
}

const mark = (met: boolean | null | undefined) => (met === undefined ? '' : met === null ? '—' : met ? '✅' : '❌');

/** Which scenarios a run had, when it lacks some the other one has (a partial `--only` run). */
function coverage(run: BenchResults, other: BenchResults): string {
  const had = run.scenarios.filter((s) => !s.error).map((s) => s.id);
  const lacks = other.scenarios.some((s) => !s.error && !had.includes(s.id));
  return lacks ? `, scenarios ${had.join(', ')} only` : '';
}

function describeRun(run: BenchResults, other: BenchResults): string {
  const commit = run.git ? `commit ${run.git.commit}${run.git.dirty ? ' with uncommitted changes' : ''}` : 'commit not recorded';
  const quick = run.quick ? ' (quick smoke run: figures not comparable)' : '';
  return `run of ${run.generatedAt.slice(0, 16).replace('T', ' ')} UTC, ${commit}, Node ${run.machine.node}${coverage(run, other)}${quick}.`;
}

export interface BeforeAfterOptions {
  /** What the before measured, when its file does not record the commit (e.g. "the tree of 3dec410"). */
  beforeLabel?: string;
}

export function renderBeforeAfter(before: BenchResults, after: BenchResults, options: BeforeAfterOptions = {}): string {
  const rows = [...overheadRows(before, after), ...TRACKED.map((t) => trackedRow(before, after, t))];
  const named = options.beforeLabel ? ` (${options.beforeLabel})` : '';
  const lines = [
    `**Before**${named}: ${describeRun(before, after)}`,
    `**After**: ${describeRun(after, before)}`,
    '',
    '| scenario | metric | before | after | change | goal | met |',
    '|---|---|--:|--:|--:|---|:-:|',
    ...rows.map((r) => `| ${r.scenario} | ${r.label} | ${shown(r, r.before)} | ${shown(r, r.after)} | ${change(r)} | ${r.goal} | ${mark(r.met)} |`),
    '',
    '- Goals of the tracked figures; scenario 1 may not get slower: each of its ratios within 10 % of the before, in the direction that is worse. "÷" rows are feedbot\'s figure over its baseline\'s in the same run.',
    '- "—": the run lacks that figure (a partial run, a backend whose server was not installed, a row an older bench did not have).',
  ];
  const [mb, ma] = [before.machine, after.machine];
  if (mb.cpuModel !== ma.cpuModel || mb.cores !== ma.cores || mb.node !== ma.node) {
    lines.push(`- The runs differ in machine or Node: before ${mb.cpuModel} × ${mb.cores}, Node ${mb.node}; after ${ma.cpuModel} × ${ma.cores}, Node ${ma.node}.`);
  }
  return lines.join('\n');
}
