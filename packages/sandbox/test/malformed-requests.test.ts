/**
 * Every listener answers a request it cannot parse with a status at once and keeps
 * serving. The sandbox's one port takes plain HTTP (refused with 403 https_required) and TLS
 * (the feed API on fastify). Request targets that Node's parser accepts and `new URL()` does not
 * (`//x:99999/`, `http://[`), as requests and as WebSocket handshakes, are sent raw on both; each
 * gets its documented status within a second, and the sandbox answers /health afterwards.
 */
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from './helpers.js';

/** Targets Node's parser lets through and no URL parser accepts. */
const UNPARSABLE_TARGETS = ['//x:99999/', 'http://[', '//[::1/', 'http://a:b@[/x', '//x:99999/v1/feeds'];
const HANDSHAKE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

let sb: TestSandbox;
const escaped: unknown[] = [];
const onEscaped = (error: unknown) => void escaped.push(error);

beforeAll(async () => {
  // Counting is not what this file tests: every answer here is a 4xx, none a 429.
  sb = await startTestSandbox({ rateLimit: { limit: 1_000_000 } });
  // What escaped the handlers is counted here instead of ending the test run.
  process.on('uncaughtException', onEscaped);
  process.on('unhandledRejection', onEscaped);
});

afterAll(async () => {
  process.off('uncaughtException', onEscaped);
  process.off('unhandledRejection', onEscaped);
  await sb?.dispose();
});

afterEach(() => {
  expect(escaped.splice(0).map(String)).toEqual([]);
});

/** Writes `bytes` on a new connection (TLS when `tls`); the status line at the answer's headers, the close, or 3 s. */
function sendRaw(bytes: string, tls: boolean): Promise<{ statusLine: string | undefined; elapsedMs: number }> {
  return new Promise((resolve) => {
    const socket = tls
      ? tlsConnect({ host: '127.0.0.1', port: sb.port, ca: sb.caPem, servername: 'localhost' })
      : netConnect({ host: '127.0.0.1', port: sb.port });
    let text = '';
    let startedAt = performance.now();
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLine: text.includes('\r\n') ? text.slice(0, text.indexOf('\r\n')) : undefined, elapsedMs: performance.now() - startedAt });
    };
    const timer = setTimeout(finish, 3_000);
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      startedAt = performance.now();
      socket.write(bytes);
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) finish();
    });
    socket.once('close', finish);
    socket.once('error', () => undefined);
  });
}

const host = () => `Host: 127.0.0.1:${sb.port}\r\n`;
/** A GET, a bodyless POST and a WebSocket handshake to `target`, with `headers`. */
const requestsTo = (target: string, headers = '') => [
  `GET ${target} HTTP/1.1\r\n${host()}${headers}\r\n`,
  `POST ${target} HTTP/1.1\r\n${host()}${headers}Content-Length: 0\r\n\r\n`,
  `GET ${target} HTTP/1.1\r\n${host()}${headers}${HANDSHAKE}\r\n`,
];

async function expectAnswers(requests: string[], tls: boolean, expected: RegExp): Promise<void> {
  for (const request of requests) {
    const answer = await sendRaw(request, tls);
    expect(answer.statusLine, request).toMatch(expected);
    expect(answer.elapsedMs).toBeLessThan(1_000);
  }
  // Still serving.
  expect((await sendRaw(`GET /health HTTP/1.1\r\n${host()}\r\n`, true)).statusLine).toBe('HTTP/1.1 200 OK');
}

describe('a request target the sandbox cannot parse', () => {
  it.each(UNPARSABLE_TARGETS)('%s over plain HTTP: 403 https_required at once, as for every plain request', async (target) => {
    await expectAnswers(requestsTo(target), false, /^HTTP\/1\.1 403 /);
  });

  it.each(UNPARSABLE_TARGETS)('%s over TLS without a key: 401 at once (the key is checked before the URL, docs/api-decisions.md)', async (target) => {
    await expectAnswers(requestsTo(target), true, /^HTTP\/1\.1 401 /);
  });

  it.each(['http://[', 'http://a:b@[/x', 'http://[/feeds'])('%s over TLS with a key: 400 bad_request at once', async (target) => {
    const { key } = await sb.admin.createScratchServer(ALL_SCOPES);
    await expectAnswers(requestsTo(target, `Authorization: Bearer ${key}\r\n`), true, /^HTTP\/1\.1 400 /);
  });

  // An origin-form path with an empty first segment is a path to fastify (and to RFC 9112), not
  // an authority: no route has it, so it is the documented 404 for an unknown route.
  it.each(['//x:99999/', '//[::1/', '//x:99999/feeds'])('%s over TLS with a key: 404 not_found at once (a path no route has)', async (target) => {
    const { key } = await sb.admin.createScratchServer(ALL_SCOPES);
    await expectAnswers(requestsTo(target, `Authorization: Bearer ${key}\r\n`), true, /^HTTP\/1\.1 404 /);
  });
});
