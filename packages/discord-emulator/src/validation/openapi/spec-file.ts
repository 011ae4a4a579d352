/** A subset file of Discord's OpenAPI document (subset.ts), read once, with its checker. */
import { readFileSync } from 'node:fs';
import { FormErrors } from '../../errors.js';
import { SchemaChecker, type SchemaIssue } from './json-schema.js';
import type { OpenApiSubset } from './subset.js';

export interface LoadedSubset {
  subset: OpenApiSubset;
  checker: SchemaChecker;
}

const loaded = new Map<string, LoadedSubset>();

export function loadSubset(file: URL): LoadedSubset {
  let entry = loaded.get(file.href);
  if (!entry) {
    const subset = JSON.parse(readFileSync(file, 'utf8')) as OpenApiSubset;
    entry = { subset, checker: new SchemaChecker(subset.schemas) };
    loaded.set(file.href, entry);
  }
  return entry;
}

/** A 50035 errors collector with what the document refuses, each naming the schema that did. */
export function specFormErrors(issues: SchemaIssue[]): FormErrors {
  const errors = new FormErrors();
  for (const issue of issues) errors.add(issue.path, issue.code, `${issue.message} (Discord OpenAPI: ${issue.schema})`);
  return errors;
}
