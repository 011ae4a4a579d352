/**
 * The spec's Limits table: 100 requests per minute per key, 429 over it, and
 * X-RateLimit-Remaining / X-RateLimit-Reset (Unix seconds) on every response.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/index.js';
import { FixedWindowLimiter, resetHeaderValue } from '../src/rate-limit.js';
import { test } from './fixtures.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody, expectRateHeaders } from './helpers.js';

const T0 = Date.parse('2026-03-04T10:00:00.250Z');

describe('FixedWindowLimiter', () => {
  it('opens a window at the first hit, counts down, refuses past the limit, reopens at the end', () => {
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 3, windowMs: 60_000 }, clock);
    const first = limiter.hit('k');
    expect(first).toMatchObject({ allowed: true, remaining: 2, resetAtMs: T0 + 60_000 });
    clock.advance(10_000);
    expect(limiter.hit('k')).toMatchObject({ allowed: true, remaining: 1, resetAtMs: T0 + 60_000 });
    expect(limiter.hit('k')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.hit('k')).toMatchObject({ allowed: false, remaining: 0, resetAtMs: T0 + 60_000 });
    clock.set(T0 + 59_999);
    expect(limiter.hit('k').allowed).toBe(false);
    clock.set(T0 + 60_000);
    expect(limiter.hit('k')).toMatchObject({ allowed: true, remaining: 2, resetAtMs: T0 + 120_000 });
  });

  it('keeps buckets apart, peeks without counting, honours a per-call limit', () => {
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 1000 }, clock);
    limiter.hit('a');
    limiter.hit('a');
    expect(limiter.hit('a').allowed).toBe(false);
    expect(limiter.hit('b').remaining).toBe(1);
    expect(limiter.peek('c')).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.peek('c').remaining).toBe(2);
    expect(limiter.hit('d', 500).remaining).toBe(499);
  });

  it('rounds the reset header up to whole seconds', () => {
    expect(resetHeaderValue({ allowed: true, limit: 1, remaining: 0, resetAtMs: 1_700_000_000_001 })).toBe(1_700_000_001);
    expect(resetHeaderValue({ allowed: true, limit: 1, remaining: 0, resetAtMs: 1_700_000_000_000 })).toBe(1_700_000_000);
  });
});

describe('per-key limit over HTTPS', () => {
  test('100 requests pass, request 101 in the same window is 429, and the key recovers at the reset', async ({ startSandbox }) => {
    const clock = new ManualClock(T0);
    const sb = await startSandbox({ clock });
    const { key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const resets = new Set<number>();
    for (let i = 1; i <= 100; i++) {
      const res = await sb.call('GET', '/stats', { key });
      expect(res.status, `request ${i}`).toBe(200);
      const { remaining, reset } = expectRateHeaders(res);
      expect(remaining).toBe(100 - i);
      resets.add(reset);
      clock.advance(100); // 10 s in all: still the same window
    }
    expect([...resets]).toEqual([Math.ceil((T0 + 60_000) / 1000)]);

    const over = await sb.call('GET', '/stats', { key });
    expect(over.status).toBe(429);
    expectErrorBody(over, 'rate_limited');
    const headers = expectRateHeaders(over);
    expect(headers).toEqual({ remaining: 0, reset: Math.ceil((T0 + 60_000) / 1000) });
    expect(Number(over.headers['retry-after'])).toBe(50);

    clock.set(T0 + 59_999);
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(429);

    clock.set(headers.reset * 1000);
    const recovered = await sb.call('GET', '/stats', { key });
    expect(recovered.status).toBe(200);
    const after = expectRateHeaders(recovered);
    expect(after.remaining).toBe(99);
    expect(after.reset).toBe(headers.reset + 60);
  });

  test('recovers on the real clock too, at the advertised X-RateLimit-Reset', async ({ startSandbox }) => {
    const sb = await startSandbox({ rateLimit: { limit: 2, windowMs: 1000 } });
    const { key } = await sb.admin.createScratchServer(ALL_SCOPES);
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);
    const over = await sb.call('GET', '/feeds', { key });
    expect(over.status).toBe(429);
    const { reset } = expectRateHeaders(over);
    const wait = reset * 1000 - Date.now();
    expect(wait).toBeLessThanOrEqual(2000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait) + 20));
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);
  });

  test('every authenticated request counts, including 400, 403 and 404 answers', async ({ startSandbox }) => {
    const clock = new ManualClock(T0);
    const sb = await startSandbox({ clock, rateLimit: { limit: 5 } });
    const { key } = await sb.admin.createScratchServer(['feeds:read']);
    const statuses: number[] = [];
    statuses.push((await sb.call('GET', '/feeds/abc/posts', { key })).status);
    statuses.push((await sb.call('GET', '/stats', { key })).status);
    statuses.push((await sb.call('GET', '/feeds/999999/posts', { key })).status);
    statuses.push((await sb.call('POST', '/feeds', { key, body: {} })).status);
    const fifth = await sb.call('GET', '/feeds', { key });
    statuses.push(fifth.status);
    expect(statuses).toEqual([400, 403, 404, 403, 200]);
    expect(expectRateHeaders(fifth).remaining).toBe(0);
    // Over the limit, 429 comes before the scope check.
    expectErrorBody(await sb.call('GET', '/stats', { key }), 'rate_limited');
  });

  test('keys are limited separately; a regenerated key starts a fresh window', async ({ startSandbox }) => {
    const clock = new ManualClock(T0);
    const sb = await startSandbox({ clock, rateLimit: { limit: 2 } });
    const a = await sb.admin.createScratchServer(ALL_SCOPES);
    const b = await sb.admin.createScratchServer(ALL_SCOPES);
    await sb.call('GET', '/feeds', { key: a.key });
    await sb.call('GET', '/feeds', { key: a.key });
    expect((await sb.call('GET', '/feeds', { key: a.key })).status).toBe(429);
    expect((await sb.call('GET', '/feeds', { key: b.key })).status).toBe(200);
    const regenerated = await sb.admin.generateKey(a.guildId, ALL_SCOPES);
    const res = await sb.call('GET', '/feeds', { key: regenerated });
    expect(res.status).toBe(200);
    expect(expectRateHeaders(res).remaining).toBe(1);
  });

  test('the limit and window are configurable, and a key may carry its own limit (benchmarks)', async ({ startSandbox }) => {
    const clock = new ManualClock(T0);
    const sb = await startSandbox({ clock, rateLimit: { limit: 3, windowMs: 1000 } });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const first = await sb.call('GET', '/feeds', { key });
    expect(expectRateHeaders(first)).toEqual({ remaining: 2, reset: Math.ceil((T0 + 1000) / 1000) });
    await sb.call('GET', '/feeds', { key });
    await sb.call('GET', '/feeds', { key });
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(429);
    clock.advance(1000);
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);

    const bench = await sb.admin.generateKey(guildId, ALL_SCOPES, { rateLimit: 1_000_000 });
    expect(expectRateHeaders(await sb.call('GET', '/feeds', { key: bench })).remaining).toBe(999_999);
    expect((await sb.admin.describeKey(guildId))?.rateLimit).toBe(1_000_000);
  });

  test('callers without a valid key share a per-IP budget: 401s carry the headers, then 429', async ({ startSandbox }) => {
    const clock = new ManualClock(T0);
    const sb = await startSandbox({ clock, rateLimit: { limit: 3 } });
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await sb.call('GET', '/feeds', { headers: { authorization: `Bearer fbk_${String(i).repeat(40)}` } });
      expect(res.status).toBe(401);
      remaining.push(expectRateHeaders(res).remaining);
    }
    expect(remaining).toEqual([2, 1, 0]);
    const blocked = await sb.call('GET', '/feeds');
    expect(blocked.status).toBe(429);
    expectErrorBody(blocked, 'rate_limited');
    // A valid key has its own budget, untouched by the guessing.
    const { key } = await sb.admin.createScratchServer(ALL_SCOPES);
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);
  });

  test('public routes (OpenAPI, media) report the caller’s budget without spending it', async ({ startSandbox }) => {
    const clock = new ManualClock(T0);
    const sb = await startSandbox({ clock, rateLimit: { limit: 2 } });
    const { guildId } = await sb.admin.createScratchServer(ALL_SCOPES);
    const feed = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    const post = await sb.admin.addPost(guildId, feed.id);
    for (let i = 0; i < 5; i++) {
      const doc = await sb.call('GET', '/openapi.json');
      expect(doc.status).toBe(200);
      expect(expectRateHeaders(doc).remaining).toBe(2);
      const media = await sb.call('GET', `/media/${post.code}.png`);
      expect(media.status).toBe(200);
      expect(expectRateHeaders(media).remaining).toBe(2);
    }
  });
});
