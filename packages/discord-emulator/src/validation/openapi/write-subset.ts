/**
 * Regenerates spec/discord-openapi.callback.json from Discord's whole OpenAPI document:
 *
 *   tsx --conditions=@feedbot/source packages/discord-emulator/src/validation/openapi/write-subset.ts [document.json]
 *
 * The document defaults to ../shared/spec/discord-openapi.json (from the repository root).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractCallbackSubset, renderSubset } from './subset.js';
import { SUBSET_FILE } from './callback-spec.js';

const source = process.argv[2] ?? '../shared/spec/discord-openapi.json';
const subset = extractCallbackSubset(JSON.parse(readFileSync(source, 'utf8')));
writeFileSync(SUBSET_FILE, renderSubset(subset));
process.stdout.write(`${Object.keys(subset.schemas).length} schemas from ${source} written to ${fileURLToPath(SUBSET_FILE)}\n`);
