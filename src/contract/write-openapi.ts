/**
 * `npm run openapi`: regenerate docs/openapi.json from the contract schemas.
 * `npm run openapi -- --check` exits 1 when the committed file is stale (for CI).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from './openapi.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

async function main(): Promise<void> {
  const rendered = renderOpenApiDocument();
  if (process.argv.includes('--check')) {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '');
    if (committed !== rendered) {
      console.error('docs/openapi.json is stale: run `npm run openapi`');
      process.exitCode = 1;
      return;
    }
    console.log('docs/openapi.json is up to date');
    return;
  }
  await writeFile(OPENAPI_FILE, rendered);
  console.log(`wrote ${OPENAPI_FILE}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
