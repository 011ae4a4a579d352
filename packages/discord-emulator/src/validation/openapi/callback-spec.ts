/**
 * Interaction responses checked against Discord's OpenAPI document (the subset in
 * spec/discord-openapi.callback.json): the branch of the callback request body whose `type`
 * enum holds the response's type, with everything it refers to. It runs after the emulator's own
 * rules (validation/messages.ts, modals.ts), which name Discord's limits more precisely, and
 * catches what they do not model.
 */
import type { FormErrors } from '../../errors.js';
import type { SchemaChecker, SchemaIssue } from './json-schema.js';
import { loadSubset, specFormErrors } from './spec-file.js';
import type { JsonSchema, OpenApiSubset } from './subset.js';

export const SUBSET_FILE = new URL('../../../spec/discord-openapi.callback.json', import.meta.url);

interface Loaded {
  subset: OpenApiSubset;
  checker: SchemaChecker;
  /** Request schema name by response type (4 → CreateMessageInteractionCallbackRequest). */
  byType: Map<number, string>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const { subset, checker } = loadSubset(SUBSET_FILE);
  const byType = new Map<number, string>();
  const branches = ((subset.root as { anyOf?: { $ref: string }[] }).anyOf ?? []).map((b) => b.$ref.split('/').at(-1)!);
  for (const name of branches) {
    const typeSchema = (checker.schema(name) as { properties?: { type?: { enum?: number[] } } }).properties?.type;
    for (const type of typeSchema?.enum ?? []) byType.set(type, name);
  }
  loaded = { subset, checker, byType };
  return loaded;
}

/** The OpenAPI version the subset came from, for the record. */
export function callbackSpecSource(): OpenApiSubset['source'] {
  return load().subset.source;
}

export function checkCallbackIssues(body: unknown): SchemaIssue[] {
  const { subset, checker, byType } = load();
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  const branch = typeof type === 'number' ? byType.get(type) : undefined;
  const schema: JsonSchema = branch ? { $ref: `#/components/schemas/${branch}` } : subset.root;
  return checker.check(schema, body);
}

/** A 50035 errors collector with what the document refuses in `body`; `ok` when nothing. */
export function checkCallbackAgainstSpec(body: unknown): FormErrors {
  return specFormErrors(checkCallbackIssues(body));
}
