/**
 * `npm run docs:screenshots [-- --out <dir>]`: regenerates every picture of the user guide from
 * the playground, in English and Spanish, into docs/guide/<lang>/images/ (or <dir>/<lang>/images/).
 *
 * Needs Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH). Without it the script says so and
 * does nothing, except under CI=true, where it fails.
 */
import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BOT_DIR } from '../stack.js';
import { CHROMIUM, LANGS, generateScreenshots } from './run.js';

export const DEFAULT_OUT = join(BOT_DIR, 'docs', 'guide');

function outDir(): string {
  const { values } = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: false });
  if (values.help) {
    console.log('usage: npm run docs:screenshots [-- --out <dir>]   (default: docs/guide; pictures go to <dir>/<lang>/images/)');
    process.exit(0);
  }
  return resolve(values.out ?? DEFAULT_OUT);
}

async function main(): Promise<void> {
  const out = outDir();
  if (!existsSync(CHROMIUM)) {
    const message = `docs:screenshots needs Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI) throw new Error(message);
    console.warn(`${message}: skipped, no picture written`);
    return;
  }
  const started = performance.now();
  const { written } = await generateScreenshots({ outDir: out, progress: (line) => console.log(`  · ${line}`) });
  for (const lang of LANGS) {
    const dir = join(out, lang, 'images');
    const bytes = written[lang].reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    console.log(`${lang}: ${written[lang].length} pictures, ${(bytes / 1024).toFixed(0)} KB in ${relative(process.cwd(), dir) || dir}`);
  }
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
