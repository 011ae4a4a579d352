/**
 * Messages the bot posts to a channel (`POST /channels/{channel_id}/messages`, JSON or the
 * `payload_json` of a multipart body) checked against Discord's OpenAPI document: its
 * `MessageCreateRequest`, kept in spec/discord-openapi.message-create.json. It runs after the
 * emulator's own rules (validation/messages.ts), which name Discord's limits more precisely.
 */
import type { FormErrors } from '../../errors.js';
import type { SchemaIssue } from './json-schema.js';
import { loadSubset, specFormErrors } from './spec-file.js';
import type { JsonSchema, OpenApiSubset } from './subset.js';

export const MESSAGE_CREATE_SUBSET_FILE = new URL('../../../spec/discord-openapi.message-create.json', import.meta.url);

export function messageCreateSpecSource(): OpenApiSubset['source'] {
  return loadSubset(MESSAGE_CREATE_SUBSET_FILE).subset.source;
}

export function checkMessageCreateIssues(body: unknown): SchemaIssue[] {
  const { subset, checker } = loadSubset(MESSAGE_CREATE_SUBSET_FILE);
  return checker.check(subset.root, body);
}

/** A 50035 errors collector with what the document refuses in `body`; `ok` when nothing. */
export function checkMessageCreateAgainstSpec(body: unknown): FormErrors {
  return specFormErrors(checkMessageCreateIssues(body));
}

/**
 * The `components` of a message edit, follow-up or webhook edit checked against the same schema
 * as a new message's: those routes' request bodies share Discord's component schemas, and it is
 * the components (selects and their defaults above all) that differ between create and edit.
 */
export function checkMessageComponentsAgainstSpec(body: unknown): FormErrors {
  const components = typeof body === 'object' && body !== null ? (body as { components?: unknown }).components : undefined;
  if (components === undefined || components === null) return specFormErrors([]);
  const { checker } = loadSubset(MESSAGE_CREATE_SUBSET_FILE);
  const request = checker.schema('MessageCreateRequest') as { properties: { components: JsonSchema } };
  return specFormErrors(checker.check(request.properties.components, components, ['components'], 'MessageCreateRequest'));
}
