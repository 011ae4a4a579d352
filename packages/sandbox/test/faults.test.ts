/**
 * Injected faults (faults.ts): each kind and phase does what the storm relies on. A fault `before`
 * leaves the API untouched; one `after` lets the work happen and spoils only the answer. The
 * sandbox's own 429s are counted apart from injected ones.
 */
import { describe, expect } from 'vitest';
import { test } from './fixtures.js';
import { ALL_SCOPES } from './helpers.js';

const GUILD = '1100000000000000081';
const feed = (cuenta: string) => ({ cuenta, canalId: '1100000000000000082', tipos: ['post'], filtros: [] });

describe('injected faults', () => {
  test('before: the request fails and nothing is created; after: the feed exists though the answer failed', async ({ startSandbox }) => {
    const sb = await startSandbox();
    await sb.admin.createServer(GUILD, 'server');
    const key = await sb.admin.generateKey(GUILD, [...ALL_SCOPES]);

    sb.faults.set([{ kind: 'error', probability: 1 }]);
    expect((await sb.call('POST', '/feeds', { key, body: feed('before.error') })).status).toBe(500);
    sb.faults.set([{ kind: 'garbage', probability: 1 }]);
    const garbled = await sb.call('POST', '/feeds', { key, body: feed('before.garbage') });
    expect([garbled.status, garbled.json]).toEqual([200, undefined]);
    sb.faults.set([{ kind: 'reset', probability: 1 }]);
    await expect(sb.call('POST', '/feeds', { key, body: feed('before.reset') })).rejects.toThrow();
    sb.faults.set([{ kind: 'rate_limited', probability: 1, retryAfterSeconds: 7 }]);
    const limited = await sb.call('POST', '/feeds', { key, body: feed('before.limited') });
    expect([limited.status, limited.headers['retry-after']]).toEqual([429, '7']);
    sb.faults.clear();
    expect(await sb.admin.listFeeds(GUILD)).toEqual([]);

    sb.faults.set([{ kind: 'error', probability: 1, phase: 'after' }]);
    expect((await sb.call('POST', '/feeds', { key, body: feed('after.error') })).status).toBe(502);
    sb.faults.set([{ kind: 'garbage', probability: 1, phase: 'after' }]);
    const afterGarbage = await sb.call('POST', '/feeds', { key, body: feed('after.garbage') });
    expect([afterGarbage.status, afterGarbage.json]).toEqual([201, undefined]);
    sb.faults.set([{ kind: 'reset', probability: 1, phase: 'after' }]);
    await expect(sb.call('POST', '/feeds', { key, body: feed('after.reset') })).rejects.toThrow();
    sb.faults.clear();
    expect((await sb.admin.listFeeds(GUILD)).map((f) => f.cuenta).sort()).toEqual(['after.error', 'after.garbage', 'after.reset']);

    expect(sb.faults.injected()).toEqual({ 'error:before': 1, 'garbage:before': 1, 'reset:before': 1, 'rate_limited:before': 1, 'error:after': 1, 'garbage:after': 1, 'reset:after': 1 });
    // The injected 429 is not the sandbox's own.
    expect(sb.faults.ownRateLimited()).toEqual({});
  });

  test('slow holds the request; a share below 1 strikes that share; the own 429s are counted by guild', async ({ startSandbox }) => {
    const sb = await startSandbox({ rateLimit: { limit: 3 } });
    await sb.admin.createServer(GUILD, 'server');
    const key = await sb.admin.generateKey(GUILD, [...ALL_SCOPES]);
    sb.faults.set([{ kind: 'slow', probability: 1, delayMs: 300 }]);
    const started = performance.now();
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    let roll = 0;
    // Strikes every other request.
    sb.faults.set([{ kind: 'error', probability: 0.5 }], () => (roll++ % 2 === 0 ? 0.25 : 0.75));
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await sb.call('GET', '/stats', { key })).status);
    // Injected failures spend no budget: the 3 go to the slow GET and the next two that got
    // through, and the third to get through is the sandbox's own 429.
    expect(statuses).toEqual([500, 200, 500, 200, 500, 429]);
    expect(sb.faults.ownRateLimited()).toEqual({ [GUILD]: 1 });
    expect(() => sb.faults.set([{ kind: 'error', probability: 2 }])).toThrow();
  });
});
