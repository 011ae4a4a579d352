/**
 * Learns what a key may do without changing any data: GET /feeds, GET /stats, and POST /feeds
 * with `{}` — a body no server can create a feed from, so 400 means "you may write, but not this"
 * and 403 means "you may not write". A 401 anywhere means the key is not valid; a 429, or a
 * refusal by the local rate gate, is thrown. Nothing is cached: the probe goes through the
 * request layer (gate, retries, observers) but not through the client's feed list cache.
 */
import type { Scope, Stats } from '@feedbot/feed-api-contract';
import {
  BadRequestError,
  ForbiddenError,
  InvalidResponseError,
  RateGateRefusalError,
  RateLimitedError,
  UnauthorizedError,
} from './errors.js';
import type { FeedApiRequester } from './request.js';
import { ApiKeySchema } from '@feedbot/feed-api-contract';
import { parseInput } from './validation.js';

type ProbeAnswer = boolean | null;

interface KeyProbe {
  /** false only when the API answered 401. */
  valid: boolean;
  /** null = could not tell (error other than 403/400, or the key is invalid). */
  scopes: Record<Scope, ProbeAnswer>;
  /** Present when GET /stats answered with a valid body: compare `servidor` with the guild id. */
  stats?: Stats;
  /**
   * Present when GET /feeds answered with a valid body: each channel the key's feeds forward to,
   * once (empty when the key has no feeds). Where those channels are tells whose key it is.
   */
  feedChannels?: string[];
  /** Present (true) when a 403 said the account is not on the plan the API requires. */
  planRequired?: true;
}

interface ProbeResult<T> {
  answer: ProbeAnswer;
  unauthorized: boolean;
  value?: T;
  planRequired?: boolean;
}

export async function probeKey(requester: Pick<FeedApiRequester, 'send'>, apiKey: string): Promise<KeyProbe> {
  const key = parseInput(ApiKeySchema, apiKey, 'listFeeds', 'apiKey');
  const invalid: KeyProbe = { valid: false, scopes: { 'feeds:read': null, 'feeds:write': null, 'stats:read': null } };

  const read = await probeOne(requester.send({ route: 'listFeeds', apiKey: key, path: '/feeds' }), 'GET');
  if (read.unauthorized) return invalid;
  const [stats, write] = await Promise.all([
    probeOne(requester.send({ route: 'getStats', apiKey: key, path: '/stats' }), 'GET'),
    probeOne(requester.send({ route: 'createFeed', apiKey: key, path: '/feeds', body: {} }), 'POST'),
  ]);
  if (stats.unauthorized || write.unauthorized) return invalid;
  const probe: KeyProbe = {
    valid: true,
    scopes: { 'feeds:read': read.answer, 'feeds:write': write.answer, 'stats:read': stats.answer },
  };
  if (stats.value !== undefined) probe.stats = stats.value;
  if (read.value !== undefined) probe.feedChannels = [...new Set(read.value.feeds.map((f) => f.canal))];
  if (read.planRequired || stats.planRequired || write.planRequired) probe.planRequired = true;
  return probe;
}

async function probeOne<T>(call: Promise<T>, method: 'GET' | 'POST'): Promise<ProbeResult<T>> {
  try {
    const value = await call;
    // A POST of `{}` that succeeds proves nothing we asked (and should not happen): "cannot tell".
    return method === 'GET' ? { answer: true, unauthorized: false, value } : { answer: null, unauthorized: false };
  } catch (err) {
    if (err instanceof RateLimitedError || err instanceof RateGateRefusalError) throw err;
    if (err instanceof UnauthorizedError) return { answer: null, unauthorized: true };
    if (err instanceof ForbiddenError) return { answer: false, unauthorized: false, planRequired: err.planRequired };
    if (method === 'POST' && err instanceof BadRequestError) return { answer: true, unauthorized: false };
    // The route answered 2xx, only the body was off: the scope is there.
    if (method === 'GET' && err instanceof InvalidResponseError && err.status !== undefined) {
      return { answer: true, unauthorized: false };
    }
    return { answer: null, unauthorized: false };
  }
}
