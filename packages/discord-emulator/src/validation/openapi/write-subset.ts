/**
 * Regenerates the subsets of Discord's whole OpenAPI document the emulator keeps
 * (spec/discord-openapi.callback.json, spec/discord-openapi.message-create.json):
 *
 *   tsx --conditions=@feedbot/source packages/discord-emulator/src/validation/openapi/write-subset.ts [document.json]
 *
 * The document defaults to ../shared/spec/discord-openapi.json (from the repository root).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SUBSET_FILE } from './callback-spec.js';
import { MESSAGE_CREATE_SUBSET_FILE } from './message-spec.js';
import { CALLBACK_PATH, MESSAGE_CREATE_PATH, extractRequestSubset, renderSubset } from './subset.js';

const source = process.argv[2] ?? '../shared/spec/discord-openapi.json';
const document: unknown = JSON.parse(readFileSync(source, 'utf8'));
for (const [path, file] of [
  [CALLBACK_PATH, SUBSET_FILE],
  [MESSAGE_CREATE_PATH, MESSAGE_CREATE_SUBSET_FILE],
] as const) {
  const subset = extractRequestSubset(document, path);
  writeFileSync(file, renderSubset(subset));
  process.stdout.write(`POST ${path}: ${Object.keys(subset.schemas).length} schemas from ${source} written to ${fileURLToPath(file)}\n`);
}
