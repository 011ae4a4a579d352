/**
 * Slow and idle clients (slowloris): the front door hands sockets to HTTP servers that never
 * listen() themselves, so Node's own header and request timers never run there; the sandbox
 * enforces its own. Real sockets on 127.0.0.1, short limits; every client gives up on its own.
 */
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, sharedTestSandbox } from './helpers.js';
import { ENDLESS_HEADERS, slowClient, type SlowClientOutcome } from './slow-client.js';

const LIMITS = { headersTimeoutMs: 600, requestTimeoutMs: 1500, idleTimeoutMs: 400 };
/** How late a time-out may be noticed on a busy two-core machine. */
const SLACK_MS = 1500;
const BOUND_MS = 6000;

const sb = sharedTestSandbox({ rateLimit: { limit: 1_000_000 }, connectionLimits: LIMITS });

/** Closed by the server, no sooner than `timeoutMs` and not much later. */
function expectClosedAfter(outcome: SlowClientOutcome, timeoutMs: number): void {
  expect(outcome.closedAfterMs, 'still open at the bound').not.toBeNull();
  expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(outcome.closedAfterMs).toBeLessThan(timeoutMs + SLACK_MS);
}

/** Nothing was answered, or a bare 408. */
function expectNoAnswerOr408(outcome: SlowClientOutcome): void {
  if (outcome.received !== '') expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
}

describe('header time-out', () => {
  it('TLS: a request line and headers dripped a byte at a time, never finished, are cut off', async () => {
    const client = slowClient({ port: sb().port, ca: sb().caPem, ...ENDLESS_HEADERS, everyMs: 40, boundMs: BOUND_MS });
    const outcome = await client.outcome;
    expectClosedAfter(outcome, LIMITS.headersTimeoutMs);
    expectNoAnswerOr408(outcome);
  });

  it('plain HTTP dripped the same way is cut off too (it never gets as far as the 403)', async () => {
    const outcome = await slowClient({ port: sb().port, ...ENDLESS_HEADERS, everyMs: 40, boundMs: BOUND_MS }).outcome;
    expectClosedAfter(outcome, LIMITS.headersTimeoutMs);
    expectNoAnswerOr408(outcome);
  });

  it('a TLS handshake that never completes is cut off', async () => {
    // A handshake record announcing 16 KiB, then its bytes one at a time.
    const outcome = await slowClient({ port: sb().port, prefix: '\x16\x03\x01\x40\x00', dripForever: '\x00', everyMs: 40, boundMs: BOUND_MS }).outcome;
    expectClosedAfter(outcome, LIMITS.headersTimeoutMs);
    expect(outcome.received).toBe('');
  });

  it('a connection that sends nothing at all is cut off', async () => {
    const outcome = await slowClient({ port: sb().port, boundMs: BOUND_MS }).outcome;
    expectClosedAfter(outcome, LIMITS.headersTimeoutMs);
  });
});

describe('request time-out', () => {
  it('a body dripped a byte at a time is cut off at the request time-out, and nothing is created', async () => {
    const { guildId, key } = await sb().admin.createScratchServer(ALL_SCOPES);
    const head = ['POST /feeds HTTP/1.1', 'Host: localhost', `Authorization: Bearer ${key}`, 'Content-Type: application/json', 'Content-Length: 200', '', ''].join('\r\n');
    const outcome = await slowClient({ port: sb().port, ca: sb().caPem, prefix: head, dripForever: ' ', everyMs: 40, boundMs: BOUND_MS }).outcome;
    expectClosedAfter(outcome, LIMITS.requestTimeoutMs);
    expectNoAnswerOr408(outcome);
    expect(await sb().admin.listFeeds(guildId)).toEqual([]);
  });
});

describe('idle time-out', () => {
  const GET_HEALTH = 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n';

  it('a kept-alive connection left idle after its response is closed', async () => {
    const client = slowClient({ port: sb().port, ca: sb().caPem, prefix: GET_HEALTH, boundMs: BOUND_MS });
    const outcome = await client.outcome;
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(outcome.received.toLowerCase()).toContain('connection: keep-alive');
    expectClosedAfter(outcome, LIMITS.idleTimeoutMs);
  });

  it('a kept-alive connection that dribbles its next request is closed as well', async () => {
    const outcome = await slowClient({ port: sb().port, ca: sb().caPem, prefix: GET_HEALTH, ...ENDLESS_HEADERS, everyMs: 40, boundMs: BOUND_MS }).outcome;
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(outcome.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expectClosedAfter(outcome, LIMITS.idleTimeoutMs);
  });

  it('requests that come in time are all answered on the same connection', async () => {
    const client = slowClient({ port: sb().port, ca: sb().caPem, boundMs: BOUND_MS });
    await client.connected;
    for (let i = 0; i < 3; i++) {
      client.write(GET_HEALTH);
      await new Promise((resolve) => setTimeout(resolve, LIMITS.idleTimeoutMs / 4));
    }
    const outcome = await client.outcome;
    expect(outcome.received.match(/HTTP\/1\.1 200 /g)).toHaveLength(3);
    expect(outcome.closedAfterMs).not.toBeNull();
  });
});

describe('well-behaved clients', () => {
  it('normal requests work under the short limits, also with bodies', async () => {
    const { guildId, key } = await sb().admin.createScratchServer(ALL_SCOPES);
    const created = await sb().call('POST', '/feeds', { key, body: { cuenta: 'nasa', canalId: '1100000000000000042', tipos: ['post'] } });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await sb().call('GET', '/feeds', { key })).status).toBe(200);
    expect(await sb().admin.listFeeds(guildId)).toHaveLength(1);
  });
});
