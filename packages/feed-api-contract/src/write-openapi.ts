/**
 * `write-openapi [--check] FILE`: writes the OpenAPI document generated from the contract schemas
 * to FILE; with --check, exits 1 when FILE is stale instead. The repository runs it as
 * `npm run openapi` (FILE = docs/openapi.json).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from './openapi.js';

async function main(): Promise<void> {
  const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!file) {
    console.error('usage: write-openapi [--check] FILE');
    process.exitCode = 2;
    return;
  }
  const rendered = renderOpenApiDocument();
  if (process.argv.includes('--check')) {
    const committed = await readFile(file, 'utf8').catch(() => '');
    if (committed !== rendered) {
      console.error(`${file} is stale: run \`npm run openapi\``);
      process.exitCode = 1;
      return;
    }
    console.log(`${file} is up to date`);
    return;
  }
  await writeFile(file, rendered);
  console.log(`wrote ${file}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
