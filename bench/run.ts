/**
 * `npm run bench`: runs the scenarios one after another, prints a table, writes
 * bench/results.json (`--out <file>` elsewhere). `--quick` (or BENCH_QUICK=1) makes a short smoke
 * run; `--only 1,3` picks scenarios; `--update-docs` rewrites the figures section of
 * docs/BENCHMARKS.md from this run (refused for quick or partial runs). `--before <results.json>`
 * compares this run with an earlier one (kept from an older checkout; it may be partial): the
 * before and after table is printed, and written into the documentation with `--update-docs`;
 * `--before-label <text>` names the before's checkout when its file does not record it.
 * Progress goes to stderr, the tables to stdout.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderBeforeAfter } from './lib/before-after.js';
import { describeGit } from './lib/git-state.js';
import { describeMachine } from './lib/machine.js';
import { updateDoc } from './lib/markdown.js';
import { formatTable, type BenchResults, type ScenarioResult } from './lib/report.js';
import { readResults } from './lib/results-file.js';
import { SCENARIOS } from './scenarios/list.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
    'update-docs': { type: 'boolean', default: false },
    before: { type: 'string' },
    'before-label': { type: 'string' },
  },
});
const quick = values.quick || process.env.BENCH_QUICK === '1';
const only = values.only ? new Set(values.only.split(',').map((s) => Number(s.trim()))) : undefined;
const here = dirname(fileURLToPath(import.meta.url));
const out = values.out ?? join(here, 'results.json');
if (values['update-docs'] && (quick || only)) {
  console.error('--update-docs needs a full run of every scenario (no --quick, no --only).');
  process.exit(2);
}
// Checked now rather than after a 13-minute run.
let before: BenchResults | undefined;
try {
  before = values.before === undefined ? undefined : readResults(values.before);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const log = (message: string) => process.stderr.write(`${message}\n`);
const machine = describeMachine();
// Taken before the run: what was measured is the tree as it stood when the scenarios started.
const git = describeGit(join(here, '..'));
log(`feedbot benchmarks${quick ? ' (quick)' : ''} — ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}${git ? `, commit ${git.commit}${git.dirty ? ' (uncommitted changes)' : ''}` : ''}`);

const started = performance.now();
const results: ScenarioResult[] = [];
for (const scenario of SCENARIOS) {
  if (only && !only.has(scenario.id)) continue;
  log(`[${scenario.id}] ${scenario.title}…`);
  const t0 = performance.now();
  try {
    const mod = await scenario.load();
    const result = await mod.run({ quick, log });
    results.push(result);
    log(`[${scenario.id}] done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`[${scenario.id}] FAILED: ${error instanceof Error ? (error.stack ?? message) : message}`);
    results.push({
      id: scenario.id,
      key: scenario.key,
      title: scenario.title,
      baseline: '',
      params: {},
      metrics: [],
      details: {},
      notes: [],
      durationMs: Math.round(performance.now() - t0),
      error: message,
    });
  }
}

const report: BenchResults = {
  generatedAt: new Date().toISOString(),
  quick,
  machine,
  ...(git ? { git } : {}),
  durationMs: Math.round(performance.now() - started),
  scenarios: results,
};
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(formatTable(results));
console.log(`\n${results.length} scenario(s) in ${(report.durationMs / 1000).toFixed(1)} s; results in ${out}`);
if (before) console.log(`\nBefore and after (markdown):\n\n${renderBeforeAfter(before, report, { beforeLabel: values['before-label'] })}`);
if (values['update-docs']) {
  const doc = join(here, '..', 'docs', 'BENCHMARKS.md');
  updateDoc(doc, report, { before, beforeLabel: values['before-label'] });
  console.log(`figures written to ${doc}`);
}
process.exitCode = results.some((r) => r.error) ? 1 : 0;
