/**
 * The Interactions Endpoint's answer to one interaction, taken as Discord takes it: 200 with an
 * interaction response is the initial response, checked and applied exactly like a callback
 * (interactions/callback.ts); 202 without a body says the bot answers through the callback
 * route instead. Anything else fails the interaction ("This interaction failed").
 */
import { parseBodyOfType, type ParsedBody } from '../http.js';
import type { RestResult } from '../errors.js';
import { interactionCallback } from '../interactions/callback.js';
import type { InteractionRecord, InteractionRegistry } from '../interactions/registry.js';
import type { ResponseContext } from '../interactions/response-message.js';
import type { RecordedCall, Violation } from '../types.js';
import { answerBody, type DeliveryOutcome } from './delivery-log.js';
import type { EndpointAnswer } from './transport.js';

/** The `route` of violations about an endpoint's answers (REST calls have `/webhooks/:app/…`). */
export const ENDPOINT_ROUTE = '<interactions endpoint>';

export interface AnswerDeps {
  responses: ResponseContext;
  registry: InteractionRegistry;
  recordViolation: (v: Omit<Violation, 'at'>) => void;
  /** A refused interaction response, recorded as the same refusal over REST would be. */
  recordRejection: (result: RestResult, where: Pick<RecordedCall, 'at' | 'method' | 'route' | 'path' | 'body'>) => void;
}

export interface AnswerResult {
  outcome: DeliveryOutcome;
  detail?: string;
}

const TAKES = new Set(['application/json', 'multipart/form-data']);

export async function takeAnswer(deps: AnswerDeps, rec: InteractionRecord, url: URL, answer: EndpointAnswer, at: number): Promise<AnswerResult> {
  const { status } = answer;
  const empty = answer.body.length === 0;
  const problem = (detail: string, failsIt = true): AnswerResult => {
    deps.recordViolation({
      kind: 'interactions_endpoint',
      status,
      code: 0,
      message: `Interactions Endpoint: ${detail}`,
      method: 'POST',
      route: ENDPOINT_ROUTE,
      path: url.href,
      interactionId: rec.id,
      body: answerBody(answer),
    });
    if (failsIt) deps.registry.fail(rec);
    return { outcome: 'refused', detail };
  };
  if (status === 202) {
    if (!empty) problem('202 must come without a body (the interaction waits for the callback route)', false);
    return { outcome: 'deferred' };
  }
  if (status < 200 || status > 299) return problem(`answered ${status}`);
  if (empty) {
    return rec.ack
      ? problem(`answered ${status} without a body after the callback route acknowledged the interaction; Discord expects 202`, false)
      : problem(`answered ${status} without an interaction response`);
  }
  if (!TAKES.has(answer.mediaType)) return problem(`the answer is ${answer.mediaType || 'without Content-Type'}, not application/json`);
  let parsed: ParsedBody;
  try {
    parsed = await parseBodyOfType(answer.contentType, answer.body);
  } catch {
    return problem('the answer is not valid JSON');
  }
  const result = interactionCallback(deps.responses, rec.id, rec.token, parsed.body, false, parsed.files);
  if (result.status < 400) return { outcome: 'accepted' };
  deps.recordRejection(result, { at, method: 'POST', route: ENDPOINT_ROUTE, path: url.href, body: parsed.body });
  deps.registry.fail(rec);
  const message = (result.body as { message?: string } | undefined)?.message ?? `refused (${result.status})`;
  return { outcome: 'refused', detail: message };
}
