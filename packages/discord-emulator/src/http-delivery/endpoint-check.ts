/**
 * What the Developer Portal does before it saves an Interactions Endpoint URL: a PING whose
 * signature does not verify must be refused with 401, and a correctly signed PING answered 200
 * with a PONG (`{"type":1}`, Content-Type application/json). If either fails, the URL is not
 * saved and Discord answers "The specified interactions endpoint URL could not be verified."
 */
import type { APIUser } from 'discord-api-types/v10';
import { snowflake, interactionToken } from '../snowflake.js';
import type { Courier, Sent } from './courier.js';
import { answerBody, type DeliveryLog, type DeliveryRecord } from './delivery-log.js';
import { parseEndpointUrl } from './transport.js';

export const ENDPOINT_NOT_VERIFIED = 'The specified interactions endpoint URL could not be verified.';

/** Which check failed: the URL itself, the PING with a bad signature, or the signed PING. */
export type EndpointCheck = 'url' | 'bad_signature' | 'ping';

export class InteractionsEndpointError extends Error {
  override name = 'InteractionsEndpointError';
  /** Discord's error code under `errors.interactions_endpoint_url`. */
  readonly code = 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID';

  constructor(
    readonly check: EndpointCheck,
    /** The emulator's explanation (Discord gives none). */
    readonly reason: string,
    /** Nothing answered at all: an endpoint not started yet may pass later. */
    readonly unanswered = false,
  ) {
    super(`interactions_endpoint_url: ${ENDPOINT_NOT_VERIFIED} (${check}: ${reason})`);
  }

  /** The 50035 Invalid Form Body Discord answers to PATCH /applications/@me. */
  formBody(): { code: number; message: string; errors: Record<string, unknown> } {
    return {
      code: 50035,
      message: 'Invalid Form Body',
      errors: { interactions_endpoint_url: { _errors: [{ code: this.code, message: ENDPOINT_NOT_VERIFIED }] } },
    };
  }
}

export interface EndpointCheckDeps {
  applicationId: string;
  /** The application's owner: who a PING comes from. */
  owner: APIUser;
  courier: Courier;
  log: DeliveryLog;
  timeoutMs: number;
}

function pingBody(deps: EndpointCheckDeps): string {
  const id = snowflake();
  return JSON.stringify({ application_id: deps.applicationId, entitlements: [], id, token: interactionToken(id), type: 1, user: deps.owner, version: 1 });
}

/** Resolves with the URL once both checks pass; throws InteractionsEndpointError otherwise. */
export async function verifyInteractionsEndpoint(deps: EndpointCheckDeps, value: string): Promise<URL> {
  const url = parseEndpointUrl(value);
  if (typeof url === 'string') throw new InteractionsEndpointError('url', url);

  const refused = await deps.courier.send(url, pingBody(deps), { timeoutMs: deps.timeoutMs, badSignature: true });
  const refusal = 'answer' in refused && refused.answer.status === 401 ? undefined : badSignatureProblem(refused);
  record(deps, url, 'ping_bad_signature', refused, refusal);
  if (refusal) throw new InteractionsEndpointError('bad_signature', refusal, !('answer' in refused));

  const pinged = await deps.courier.send(url, pingBody(deps), { timeoutMs: deps.timeoutMs });
  const problem = pongProblem(pinged);
  record(deps, url, 'ping', pinged, problem);
  if (problem) throw new InteractionsEndpointError('ping', problem, !('answer' in pinged));
  return url;
}

function badSignatureProblem(sent: Sent): string {
  if (!('answer' in sent)) return `a PING with an invalid signature got no answer (${sent.detail})`;
  return `a PING with an invalid X-Signature-Ed25519 was answered ${sent.answer.status}, not 401: the endpoint must refuse requests whose signature does not verify`;
}

/** Why the answer to the signed PING is not a PONG, or undefined when it is. */
function pongProblem(sent: Sent): string | undefined {
  if (!('answer' in sent)) return `the signed PING got no answer (${sent.detail})`;
  const { status, mediaType } = sent.answer;
  if (status !== 200) return `the signed PING was answered ${status}, not 200`;
  if (mediaType !== 'application/json') return `the answer to the signed PING is ${mediaType || 'without Content-Type'}, not application/json`;
  const body = answerBody(sent.answer);
  if (typeof body !== 'object' || body === null || (body as { type?: unknown }).type !== 1) {
    return `the signed PING was answered ${JSON.stringify(body)}, not a PONG {"type":1}`;
  }
  return undefined;
}

function record(deps: EndpointCheckDeps, url: URL, kind: DeliveryRecord['kind'], sent: Sent, problem: string | undefined): void {
  const answered = 'answer' in sent;
  deps.log.add({
    at: sent.startedAt,
    url: url.href,
    kind,
    interactionId: null,
    timestamp: sent.timestamp,
    status: answered ? sent.answer.status : 0,
    answer: answered ? answerBody(sent.answer) : null,
    outcome: problem === undefined ? 'accepted' : answered ? 'refused' : sent.failure === 'timeout' ? 'timeout' : 'unreachable',
    ...(problem === undefined ? {} : { detail: problem }),
    durationMs: Date.now() - sent.startedAt,
  });
}
