/**
 * Messages the bot posts to a channel (`POST /channels/{channel_id}/messages`, JSON or the
 * `payload_json` of a multipart body) checked against Discord's OpenAPI document: its
 * `MessageCreateRequest`, kept in spec/discord-openapi.message-create.json. It runs after the
 * emulator's own rules (validation/messages.ts), which name Discord's limits more precisely.
 */
import type { FormErrors } from '../../errors.js';
import type { SchemaIssue } from './json-schema.js';
import { loadSubset, specFormErrors } from './spec-file.js';
import type { OpenApiSubset } from './subset.js';

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
