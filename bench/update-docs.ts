/**
 * Writes the figures of bench/results.json (a full run) into docs/BENCHMARKS.md.
 * `npx tsx bench/update-docs.ts [results.json]`; `npm run bench -- --update-docs` does the same
 * right after a run.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { updateDoc } from './lib/markdown.js';
import type { BenchResults } from './lib/report.js';
import { SCENARIOS } from './scenarios/list.js';

const here = dirname(fileURLToPath(import.meta.url));
const file = process.argv[2] ?? join(here, 'results.json');
const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
if (results.quick || results.scenarios.length < SCENARIOS.length) {
  console.error(`${file} is a quick or partial run; the documentation takes the figures of a full run only.`);
  process.exit(2);
}
updateDoc(join(here, '..', 'docs', 'BENCHMARKS.md'), results);
console.log('docs/BENCHMARKS.md updated');
