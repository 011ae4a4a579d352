/**
 * What the request layer reports after every attempt, through one hook (`onResponse`): logs,
 * metrics and the router's per-interaction record subscribe to it, so no caller has to carry
 * an outcome back by hand. Events never hold the API key.
 *
 * Listeners run synchronously, in the async context of the call that caused the event: an
 * AsyncLocalStorage store (one per interaction, say) is current inside the listener.
 */
import type { RouteName } from '@feedbot/feed-api-contract';
import type { Listener } from '../observers.js';
import type { AttemptOutcome, Method } from './retry-policy.js';

/** How one attempt ended: an HTTP status, no complete answer, or refused by the local gate. */

type ResponseOutcome = AttemptOutcome | { kind: 'refused'; resetAt: Date };

export type ResponseEvent = ResponseOutcome & {
  route: RouteName;
  method: Method;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  attempt: number;
  /** Another attempt of the same call follows, after a backoff. */
  retrying: boolean;
  /** Milliseconds (not rounded) from sending to the complete answer or failure; 0 when refused. */
  latencyMs: number;
  /** The key's unreserved budget after this attempt, when rate headers have taught one. */
  remaining: number | null;
  /**
   * true: the caller joined an identical GET already in flight. It receives that call's events
   * once the call settles, in its own async context; no request of its own was sent.
   */
  joined: boolean;
};

export type ResponseListener = Listener<ResponseEvent>;
