/**
 * Writes the figures of bench/results.json (a full run) into docs/BENCHMARKS.md.
 * `npx tsx bench/update-docs.ts [results.json] [--before <older results.json>] [--before-label <text>]
 * [--doc <file>] [--print]`; `npm run bench -- --update-docs` does the same right after a run.
 * `--before` adds a before and after table (the before may be partial, or from an older bench);
 * `--print` writes the generated section to stdout instead of into the document, and previews
 * quick or partial runs too.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderResults, updateDoc } from './lib/markdown.js';
import { readResults } from './lib/results-file.js';
import { SCENARIOS } from './scenarios/list.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    before: { type: 'string' },
    'before-label': { type: 'string' },
    doc: { type: 'string' },
    print: { type: 'boolean', default: false },
  },
});
const file = positionals[0] ?? join(here, 'results.json');
const doc = values.doc ?? join(here, '..', 'docs', 'BENCHMARKS.md');

try {
  const results = readResults(file);
  const options = { before: values.before === undefined ? undefined : readResults(values.before), beforeLabel: values['before-label'] };
  const partial = results.quick || results.scenarios.length < SCENARIOS.length;
  if (values.print) {
    if (partial) console.error(`(${file} is a quick or partial run: a preview, not figures for the documentation)`);
    console.log(renderResults(results, options));
  } else if (partial) {
    console.error(`${file} is a quick or partial run; the documentation takes the figures of a full run only (--print shows them).`);
    process.exitCode = 2;
  } else {
    updateDoc(doc, results, options);
    console.log(`${doc} updated`);
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 2;
}
