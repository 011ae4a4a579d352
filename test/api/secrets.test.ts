import { inspect } from 'node:util';
import { describe, expect } from 'vitest';
import { FeedApiError } from '../../src/api/errors.js';
import { probeKey } from '../../src/api/key-probe.js';
import { apiTest as it } from './fixtures.js';
import { AUTH, BASE_PATH, FEED_LIST, KEY, NEW_FEED, STATS, rateHeaders, settle } from './helpers.js';

function everythingAbout(err: unknown): string {
  const e = err as FeedApiError & { apiMessage?: string; body?: unknown };
  return [String(e), e.message, e.stack, e.apiMessage, JSON.stringify(e.body), inspect(e, { depth: 10 })].join('\n');
}

describe('the API key never leaks', () => {
  it('not in error messages, bodies or inspected errors — even when the server echoes it', async ({ makeClient, pool, clock }) => {
    const client = makeClient({ timeoutMs: 30 });
    const events: unknown[] = [];
    client.onResponse((e) => events.push(e));
    const p = (path: string, method = 'GET') => pool.intercept({ path: `${BASE_PATH}${path}`, method });
    p('/feeds').reply(401, { error: { mensaje: `key ${KEY} is not valid`, key: KEY } });
    p('/stats').reply(403, `forbidden for Bearer ${KEY}`);
    p('/feeds', 'POST').reply(400, { message: `${'x'.repeat(290)}${KEY}` }); // cut at 300 chars: no half key
    p('/feeds/1', 'DELETE').reply(500, { errors: [{ message: KEY }] }).times(3);
    p('/feeds/2/posts').reply(200, { posts: [{ id: KEY }] });
    p('/feeds/3/posts').replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })).times(3);
    p('/feeds/4/posts').reply(200, { posts: [] }).delay(500).times(3);
    p('/feeds/5/posts').reply(429, { mensaje: KEY }, { headers: rateHeaders(0, clock.resetIn(30)) });

    const calls: Array<() => Promise<unknown>> = [
      () => client.listFeeds(AUTH),
      () => client.getStats(AUTH),
      () => client.createFeed(AUTH, NEW_FEED),
      () => client.deleteFeed(AUTH, 1),
      () => client.listPosts(AUTH, 2),
      () => client.listPosts(AUTH, 3),
      () => client.listPosts(AUTH, 4),
    ];
    const errors: unknown[] = [];
    for (const c of calls) {
      const r = await settle(c());
      expect(r.ok).toBe(false);
      if (!r.ok) errors.push(r.error);
    }
    // 429 upstream, then a local refusal.
    for (let i = 0; i < 2; i++) {
      const r = await settle(client.listPosts(AUTH, 5));
      if (!r.ok) errors.push(r.error);
    }
    expect(errors).toHaveLength(9);
    for (const err of errors) {
      expect(err).toBeInstanceOf(FeedApiError);
      const text = everythingAbout(err);
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(0, 12)); // no prefix of it either
    }
    expect((errors[0] as { apiMessage: string }).apiMessage).toContain('[redacted]');
    expect(events.length).toBeGreaterThanOrEqual(errors.length);
    expect(inspect(events, { depth: 10 })).not.toContain(KEY.slice(0, 12)); // nor in what observers see
  });

  it('not in log lines, which do carry route, status, attempt, ms and remaining', async ({ makeClient, pool, clock, log }) => {
    const client = makeClient({ logger: log.logger, timeoutMs: 30 });
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST, { headers: rateHeaders(42, clock.resetIn(60)) });
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(503, {}).times(3);
    await client.listFeeds(AUTH);
    await settle(client.getStats(AUTH));
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'GET' }).reply(200, FEED_LIST);
    pool.intercept({ path: `${BASE_PATH}/stats`, method: 'GET' }).reply(200, STATS);
    pool.intercept({ path: `${BASE_PATH}/feeds`, method: 'POST' }).reply(400, {});
    await probeKey(client.requester, KEY);

    expect(log.lines.length).toBeGreaterThanOrEqual(4);
    for (const line of log.lines) {
      expect(line).not.toContain(KEY);
      expect(line.toLowerCase()).not.toContain('bearer');
    }
    const first = JSON.parse(log.lines[0] ?? '{}') as Record<string, unknown>;
    expect(first).toMatchObject({ route: 'listFeeds', method: 'GET', status: 200, attempt: 1, remaining: 42 });
    expect(typeof first.ms).toBe('number');
    const retries = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.route === 'getStats');
    expect(retries.slice(0, 3).map((l) => l.attempt)).toEqual([1, 2, 3]);
    expect(retries.slice(0, 3).every((l) => l.status === 503)).toBe(true);
  });
});
