/**
 * explain() for the API errors whose shape changed: a 404 that names its own feed, and the local
 * gate's refusal, which users read as a 429 but which carries no upstream status.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError, RateGateRefusalError, RateLimitedError } from '../../src/api/errors.js';
import { translator } from '../../src/i18n/index.js';
import { explain } from '../../src/interactions/explain.js';

const t = translator('en');
const resetAt = new Date(Date.UTC(2026, 10, 21, 12, 0, 30));

describe('explain', () => {
  it('a 404 names the feed it carries, and is generic when it carries none', () => {
    const carried = new NotFoundError({ route: 'listPosts', attempts: 1, status: 404, feedId: 7 });
    expect(explain(carried, { t }).message).toBe('Feed #7 does not exist in this server.');
    const bare = new NotFoundError({ route: 'getStats', attempts: 1, status: 404 });
    expect(explain(bare, { t }).message).toBe('The API could not find what was asked for.');
  });

  it('a local refusal reads like a 429, with the reset time, but logs as rate_limited_local', () => {
    const local = explain(new RateGateRefusalError({ route: 'getStats', resetAt }), { t });
    const upstream = explain(new RateLimitedError({ route: 'getStats', attempts: 1, resetAt }), { t });
    expect(local.message).toBe(upstream.message);
    expect(local.message).toContain(`<t:${resetAt.getTime() / 1000}:R>`);
    expect([local.outcome, upstream.outcome]).toEqual(['rate_limited_local', 'api_429']);
    expect(local.level).toBe('info');
  });
});
