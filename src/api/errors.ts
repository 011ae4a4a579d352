/**
 * The one error hierarchy of the feed API client. Command handlers branch on the class (or the
 * stable `code`) to pick the user-facing explanation; nothing here ever holds the API key: the
 * client scrubs it from server-provided text before it reaches `apiMessage` or `body`.
 */
import { mayHaveBeenSent } from './retry-policy.js';
import { ROUTES, type RouteName, type Scope } from '@feedbot/feed-api-contract';

interface FeedApiErrorInit {
  route?: RouteName;
  /** Requests actually sent for this call (0 when refused before sending). */
  attempts: number;
  cause?: unknown;
}

export class FeedApiError extends Error {
  /** Stable machine code, e.g. `forbidden`, `timeout`, `rate_limited`. */
  readonly code: string;
  readonly route?: RouteName;
  readonly attempts: number;

  constructor(code: string, message: string, init: FeedApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = code;
    this.route = init.route;
    this.attempts = init.attempts;
  }
}

interface FeedApiHttpErrorInit extends FeedApiErrorInit {
  status: number;
  apiMessage?: string;
  body?: unknown;
}

function routeLabel(route: RouteName | undefined): string {
  if (!route) return 'Feed API';
  const r = ROUTES[route];
  return `Feed API ${r.method} ${r.path}`;
}

function httpMessage(init: FeedApiHttpErrorInit, what: string): string {
  const suffix = init.apiMessage ? `: ${init.apiMessage}` : '';
  return `${routeLabel(init.route)} → ${init.status} ${what}${suffix}`;
}

export class FeedApiHttpError extends FeedApiError {
  readonly status: number;
  /** Best-effort human message from the response body (any shape), sanitised and truncated. */
  readonly apiMessage?: string;
  /** The parsed response body (JSON value, or text when not JSON), scrubbed of the key. */
  readonly body?: unknown;

  constructor(code: string, what: string, init: FeedApiHttpErrorInit) {
    super(code, httpMessage(init, what), init);
    this.status = init.status;
    this.apiMessage = init.apiMessage;
    this.body = init.body;
  }
}

/**
 * A status class whose only difference from its siblings is its code and description. Each
 * subclass is still a real, named class: `instanceof` and `error.name` work as for any other.
 */
function statusErrorClass(code: string, what: string) {
  return class extends FeedApiHttpError {
    constructor(init: FeedApiHttpErrorInit) {
      super(code, what, init);
    }
  };
}

export class BadRequestError extends statusErrorClass('bad_request', 'Bad Request') {}

export class UnauthorizedError extends statusErrorClass('unauthorized', 'Unauthorized (API key invalid, revoked or missing)') {}

export class ForbiddenError extends FeedApiHttpError {
  readonly requiredScope: Scope;

  constructor(init: FeedApiHttpErrorInit & { route: RouteName }) {
    const scope = ROUTES[init.route].scope;
    super('forbidden', `Forbidden (the key lacks scope ${scope})`, init);
    this.requiredScope = scope;
  }

  /**
   * A 403 can also mean the account is not on the plan the API requires (spec: "Access to the
   * API requires the server plan"). The spec gives no error shape, so look for the word in
   * whatever message or code the API sent rather than in one fixed field.
   */
  get planRequired(): boolean {
    const inner = (this.body as { error?: { codigo?: unknown; code?: unknown } } | undefined)?.error;
    const texts = [this.apiMessage, inner?.codigo, inner?.code];
    return texts.some((s) => typeof s === 'string' && /\bplan/i.test(s));
  }
}

export class NotFoundError extends FeedApiHttpError {
  /** The feed the request was about (DELETE /feeds/{id}, GET /feeds/{id}/posts), so a reply can name it. */
  readonly feedId?: number;
  /**
   * This 404 answered a retry, and an earlier attempt of the same call may have reached the API
   * (it timed out, was reset or got a 5xx): for a DELETE, that attempt may be what removed it.
   */
  readonly afterAttemptThatMayHaveArrived: boolean;

  constructor(init: FeedApiHttpErrorInit & { feedId?: number; afterAttemptThatMayHaveArrived?: boolean }) {
    super('not_found', 'Not Found', init);
    this.feedId = init.feedId;
    this.afterAttemptThatMayHaveArrived = init.afterAttemptThatMayHaveArrived ?? false;
  }
}

/** The API answered 429. A refusal by the client's own gate is a RateGateRefusalError instead. */
export class RateLimitedError extends FeedApiHttpError {
  readonly resetAt: Date;

  constructor(init: Omit<FeedApiHttpErrorInit, 'status'> & { resetAt: Date }) {
    super('rate_limited', `Too Many Requests (until ${init.resetAt.toISOString()})`, { ...init, status: 429 });
    this.resetAt = init.resetAt;
  }
}

/**
 * The client's own rate gate refused the call: the key's known budget is spent, so nothing was
 * sent and the API gave no status. Users hear the same as for a 429; the log line does not.
 */
export class RateGateRefusalError extends FeedApiError {
  readonly resetAt: Date;

  constructor(init: Omit<FeedApiErrorInit, 'attempts'> & { resetAt: Date }) {
    const what = `refused locally: the key's budget is spent until ${init.resetAt.toISOString()}`;
    super('rate_limited_local', `${routeLabel(init.route)} → ${what}`, { ...init, attempts: 0 });
    this.resetAt = init.resetAt;
  }
}

export class ServerError extends statusErrorClass('server_error', 'Server Error') {}

export class UnexpectedStatusError extends statusErrorClass('unexpected_status', 'Unexpected Status') {}

export class TimeoutError extends FeedApiError {
  readonly timeoutMs: number;

  constructor(init: FeedApiErrorInit & { timeoutMs: number }) {
    super('timeout', `${routeLabel(init.route)} → no complete answer within ${init.timeoutMs} ms`, init);
    this.timeoutMs = init.timeoutMs;
  }
}

export class ConnectionError extends FeedApiError {
  /** The system or undici error code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET, a TLS code…), if any. */
  readonly systemCode?: string;

  constructor(init: FeedApiErrorInit & { systemCode?: string }) {
    const detail = init.systemCode ? ` (${init.systemCode})` : '';
    super('connection', `${routeLabel(init.route)} → connection failed${detail}`, init);
    this.systemCode = init.systemCode;
  }
}

export class InvalidResponseError extends FeedApiError {
  /** One line per problem, `path: message`, e.g. `feeds[0].id: Invalid input: expected number…`. */
  readonly issues: string[];
  readonly status?: number;

  constructor(init: FeedApiErrorInit & { issues: string[]; status?: number }) {
    const shown = init.issues.slice(0, 5).join('; ');
    const more = init.issues.length > 5 ? ` (+${init.issues.length - 5} more)` : '';
    super('invalid_response', `${routeLabel(init.route)} → response does not match the contract: ${shown}${more}`, init);
    this.issues = init.issues;
    this.status = init.status;
  }
}

/**
 * The caller's input was refused before anything was sent (bad id, bad query, bad create body,
 * empty key). Handlers validate first, so this signals a programming error more than a user one.
 */
export class InvalidRequestError extends FeedApiError {
  readonly issues: string[];

  constructor(init: Omit<FeedApiErrorInit, 'attempts'> & { issues: string[] }) {
    super('invalid_request', `${routeLabel(init.route)} → invalid input: ${init.issues.join('; ')}`, {
      ...init,
      attempts: 0,
    });
    this.issues = init.issues;
  }
}

/** Maps a non-2xx status (other than 429, which needs a reset time) to its class. */
export function httpErrorFor(init: FeedApiHttpErrorInit & { route: RouteName; feedId?: number; afterAttemptThatMayHaveArrived?: boolean }): FeedApiHttpError {
  const s = init.status;
  if (s === 400) return new BadRequestError(init);
  if (s === 401) return new UnauthorizedError(init);
  if (s === 403) return new ForbiddenError(init);
  if (s === 404) return new NotFoundError(init);
  if (s >= 500 && s <= 599) return new ServerError(init);
  return new UnexpectedStatusError(init);
}

/**
 * A failed call that may nonetheless have done its work at the API: its answer was lost or
 * unreadable (a time-out, a 5xx, a connection cut after sending, a body that is not the
 * contract's). A create that failed so is looked for before anyone is told it did not happen.
 */
export function mayHaveDoneWork(error: unknown): boolean {
  if (error instanceof TimeoutError || error instanceof ServerError || error instanceof InvalidResponseError) return true;
  // A refused connection or a refused certificate sent nothing; a reset or a cut socket may have sent it all.
  return error instanceof ConnectionError && error.attempts > 0 && mayHaveBeenSent(error.systemCode);
}
