/**
 * Every listener feedbot owns (the ops listener of `npm start` and of the shard manager, and POST
 * /interactions) answers a request line it cannot parse with 400 at once, writes at most one debug
 * line for it, and keeps serving. `new URL()` throws on such a line: thrown in the request
 * handler, it would be an uncaught exception that kills the shard manager, or, under `npm start`'s
 * handler, an error line with a stack each time and a socket held until Node's 408.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { InitialResponses } from '../../src/http/initial-response.js';
import { startInteractionsServer, type InteractionsServer } from '../../src/http/interactions-server.js';
import { MemorySeenInteractions } from '../../src/http/replay.js';
import { startOpsServer, type OpsServer } from '../../src/ops/http-server.js';
import { capturingLogger, rawRequest } from './raw-client.js';

/** Request targets that reach the handler (Node's parser accepts them) but no URL parser does. */
const UNPARSABLE_TARGETS = ['//x:99999/', 'http://[', '//[::1/', 'http://a:b@[/x'];

const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => void uncaught.push(error);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  process.off('uncaughtException', onUncaught);
  await Promise.all(closers.splice(0).map((close) => close()));
});

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function opsListener() {
  const { logger, lines } = capturingLogger();
  const server: OpsServer = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger,
    scrape: async () => ({ contentType: 'text/plain', body: 'up 1\n' }),
    readiness: async () => ({ ready: true, shards: {}, keyStore: 'ok', problems: [] }),
  });
  closers.push(() => server.close());
  return { port: server.port, lines, method: 'GET', path: '/healthz' };
}

async function interactionsListener() {
  const { logger, lines } = capturingLogger();
  const server: InteractionsServer = await startInteractionsServer({
    host: '127.0.0.1',
    port: 0,
    publicKey: generateKeyPairSync('ed25519').publicKey,
    seen: new MemorySeenInteractions(),
    responses: new InitialResponses(),
    dispatch: () => false,
    logger,
  });
  closers.push(() => server.close());
  return { port: portOf(server.url), lines, method: 'POST', path: '/interactions' };
}

describe.each([
  ['the ops listener', opsListener],
  ['the interactions endpoint', interactionsListener],
])('%s, sent a request line it cannot parse', (_name, start) => {
  it.each(UNPARSABLE_TARGETS)('answers 400 at once to %s, logs at most one debug line, and keeps serving', async (target) => {
    // An uncaught exception is what killed the manager: count it here instead of letting it end the run.
    process.on('uncaughtException', onUncaught);
    const listener = await start();
    const before = listener.lines.length;
    for (const method of ['GET', listener.method]) {
      const answer = await rawRequest(listener.port, `${method} ${target} HTTP/1.1\r\nHost: a\r\n\r\n`, 3_000);
      expect(answer.statusLine, `${method} ${target}`).toBe('HTTP/1.1 400 Bad Request');
      expect(answer.elapsedMs).toBeLessThan(1_000);
    }
    expect(uncaught).toEqual([]);
    const written = listener.lines.slice(before);
    expect(written.length).toBeLessThanOrEqual(2);
    for (const line of written) {
      expect(line.level, JSON.stringify(line)).toBeLessThanOrEqual(20);
      expect(JSON.stringify(line)).not.toMatch(/stack|at .*\.(js|ts):\d+/);
    }
    // Still serving.
    const next = await rawRequest(listener.port, `${listener.method} ${listener.path} HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n`);
    expect(next.statusLine).toMatch(/^HTTP\/1\.1 (200|401) /);
  });

  it('leaves what Node itself refuses to Node: 400 and the connection closed', async () => {
    const listener = await start();
    const before = listener.lines.length;
    for (const bytes of ['GET /a b HTTP/1.1\r\n\r\n', 'NOT-HTTP\r\n\r\n', `GET /${'x'.repeat(20_000)} HTTP/1.1\r\n${'h: v\r\n'.repeat(3_000)}\r\n`]) {
      const answer = await rawRequest(listener.port, bytes);
      expect(answer.statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(answer.elapsedMs).toBeLessThan(1_000);
    }
    expect(listener.lines.slice(before).filter((l) => Number(l.level) > 20)).toEqual([]);
  });
});
