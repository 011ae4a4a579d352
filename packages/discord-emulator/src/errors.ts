/**
 * Discord-shaped error answers, and the collector that builds the nested `errors` tree of a
 * 50035 "Invalid Form Body" answer (`{ embeds: { 0: { title: { _errors: [...] } } } }`).
 */
import type { ViolationKind } from './types.js';

export type PathSegment = string | number;

export interface FormIssue {
  path: PathSegment[];
  code: string;
  message: string;
}

export class FormErrors {
  readonly issues: FormIssue[] = [];

  add(path: PathSegment[], code: string, message: string): void {
    this.issues.push({ path, code, message });
  }

  get ok(): boolean {
    return this.issues.length === 0;
  }

  tree(): Record<string, unknown> {
    const root: Record<string, unknown> = {};
    for (const issue of this.issues) {
      let node = root;
      for (const segment of issue.path) {
        const key = String(segment);
        node[key] ??= {};
        node = node[key] as Record<string, unknown>;
      }
      const list = (node._errors ??= []) as { code: string; message: string }[];
      list.push({ code: issue.code, message: issue.message });
    }
    return root;
  }
}

/** An answer from a route handler: status, JSON body, and what to record if it is a rejection. */
export interface RestResult {
  status: number;
  body?: unknown;
  /** Raw bytes instead of JSON (attachments). */
  raw?: { data: Buffer; contentType: string };
  violation?: { kind: ViolationKind; errors?: unknown; interactionId?: string };
}

export function ok(body: unknown, status = 200): RestResult {
  return { status, body };
}

export function noContent(): RestResult {
  return { status: 204 };
}

export function discordError(
  status: number,
  code: number,
  message: string,
  kind: ViolationKind,
  extra: { errors?: unknown; interactionId?: string } = {},
): RestResult {
  const body: Record<string, unknown> = { message, code };
  if (extra.errors !== undefined) body.errors = extra.errors;
  return { status, body, violation: { kind, errors: extra.errors, interactionId: extra.interactionId } };
}

export function invalidFormBody(errors: FormErrors, interactionId?: string): RestResult {
  return discordError(400, 50035, 'Invalid Form Body', 'invalid_form_body', { errors: errors.tree(), interactionId });
}

export const unauthorized = (): RestResult => discordError(401, 0, '401: Unauthorized', 'unauthorized');
export const notFound = (): RestResult => discordError(404, 0, '404: Not Found', 'not_found');
export const unknownInteraction = (interactionId?: string): RestResult =>
  discordError(404, 10062, 'Unknown interaction', 'unknown_interaction', { interactionId });
export const alreadyAcknowledged = (interactionId?: string): RestResult =>
  discordError(400, 40060, 'Interaction has already been acknowledged.', 'already_acknowledged', { interactionId });
export const unknownWebhook = (interactionId?: string): RestResult =>
  discordError(404, 10015, 'Unknown Webhook', 'unknown_webhook', { interactionId });
export const unknownMessage = (interactionId?: string): RestResult =>
  discordError(404, 10008, 'Unknown Message', 'unknown_message', { interactionId });
export const invalidWebhookToken = (interactionId?: string): RestResult =>
  discordError(401, 50027, 'Invalid Webhook Token', 'invalid_webhook_token', { interactionId });
export const emptyMessage = (interactionId?: string): RestResult =>
  discordError(400, 50006, 'Cannot send an empty message', 'empty_message', { interactionId });
export const missingAccess = (): RestResult => discordError(403, 50001, 'Missing Access', 'forbidden');
export const missingPermissions = (): RestResult => discordError(403, 50013, 'Missing Permissions', 'forbidden');
export const unknownGuild = (): RestResult => discordError(404, 10004, 'Unknown Guild', 'not_found');
export const unknownChannel = (): RestResult => discordError(404, 10003, 'Unknown Channel', 'not_found');
export const unknownCommand = (): RestResult => discordError(404, 10063, 'Unknown application command', 'not_found');
export const invalidJson = (): RestResult =>
  discordError(400, 50109, 'The request body contains invalid JSON.', 'bad_request');
