/**
 * The sandbox's request count (request-count.ts): every answered request, by the server of the
 * key that made it; refused ones count too, requests without a valid key only in the total.
 */
import { describe, expect } from 'vitest';
import { RequestCount } from '../src/request-count.js';
import { test } from './fixtures.js';
import { ALL_SCOPES } from './helpers.js';

const GUILD_A = '1100000000000000071';
const GUILD_B = '1100000000000000072';

describe('RequestCount', () => {
  test('counts answered requests per server and in all', async ({ startSandbox }) => {
    const sb = await startSandbox();
    await sb.admin.createServer(GUILD_A, 'server');
    await sb.admin.createServer(GUILD_B, 'server');
    const [a, b] = [await sb.admin.generateKey(GUILD_A, [...ALL_SCOPES]), await sb.admin.generateKey(GUILD_B, ['stats:read'])];
    const start = sb.requests.total();
    expect((await sb.call('GET', '/feeds', { key: a })).status).toBe(200);
    expect((await sb.call('GET', '/stats', { key: a })).status).toBe(200);
    // A refusal (missing scope) is still a request that reached the sandbox.
    expect((await sb.call('GET', '/feeds', { key: b })).status).toBe(403);
    expect((await sb.call('GET', '/feeds', { key: null })).status).toBe(401);
    expect([sb.requests.total(GUILD_A), sb.requests.total(GUILD_B), sb.requests.total() - start]).toEqual([2, 1, 4]);
    expect(sb.requests.total('1100000000000000079')).toBe(0);
  });

  test('alone: nothing counted until recorded', () => {
    const count = new RequestCount();
    count.record(undefined);
    count.record(GUILD_A);
    expect([count.total(), count.total(GUILD_A), count.total(GUILD_B)]).toEqual([2, 1, 0]);
  });
});
