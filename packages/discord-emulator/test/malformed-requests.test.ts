/**
 * The emulator answers a request target it cannot parse with 400 at once and keeps
 * serving. Node's HTTP parser accepts targets such as `//x:99999/` or `http://[` and hands them on;
 * `new URL()` throws on them. Unhandled, that would be a rejection in the request handler (no
 * answer at all) and, for a WebSocket handshake, an uncaught exception thrown from the 'upgrade'
 * listener, which ends any process that has no handler for it.
 */
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordEmulator } from '../src/index.js';
import { startTestEmulator } from './helpers.js';
import { sendRaw } from './raw-socket.js';

/** Targets Node's parser lets through and no URL parser accepts. */
const UNPARSABLE_TARGETS = ['//x:99999/', 'http://[', '//[::1/', 'http://a:b@[/x'];
const HANDSHAKE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

let emu: DiscordEmulator;
let port: number;
const escaped: unknown[] = [];
const onEscaped = (error: unknown) => void escaped.push(error);

beforeAll(async () => {
  emu = await startTestEmulator();
  port = Number(new URL(emu.apiUrl).port);
  // What escaped the handlers is counted here instead of ending the test run.
  process.on('uncaughtException', onEscaped);
  process.on('unhandledRejection', onEscaped);
});

afterAll(async () => {
  process.off('uncaughtException', onEscaped);
  process.off('unhandledRejection', onEscaped);
  await emu?.close();
});

afterEach(() => {
  expect(escaped.splice(0).map(String)).toEqual([]);
});

describe('a request target the emulator cannot parse', () => {
  const host = () => `Host: 127.0.0.1:${port}\r\n`;

  it.each(UNPARSABLE_TARGETS)('%s: a request gets 400 at once, and the emulator keeps serving', async (target) => {
    for (const method of ['GET', 'POST']) {
      const answer = await sendRaw(port, `${method} ${target} HTTP/1.1\r\n${host()}Content-Length: 0\r\n\r\n`);
      expect(answer.statusLine, `${method} ${target}`).toBe('HTTP/1.1 400 Bad Request');
      expect(answer.elapsedMs).toBeLessThan(1_000);
    }
    const next = await sendRaw(port, `GET /api/v10/gateway HTTP/1.1\r\n${host()}\r\n`);
    expect(next.statusLine).toBe('HTTP/1.1 200 OK');
  });

  it.each(UNPARSABLE_TARGETS)('%s: a WebSocket handshake gets 400 at once, and the gateway keeps accepting', async (target) => {
    const answer = await sendRaw(port, `GET ${target} HTTP/1.1\r\n${host()}${HANDSHAKE}\r\n`);
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(answer.elapsedMs).toBeLessThan(1_000);
    const next = await sendRaw(port, `GET /gateway?v=10&encoding=json HTTP/1.1\r\n${host()}${HANDSHAKE}\r\n`);
    expect(next.statusLine).toBe('HTTP/1.1 101 Switching Protocols');
  });

  it('a foreign Host is still refused first (421), whatever the target', async () => {
    const answer = await sendRaw(port, `GET http://[ HTTP/1.1\r\nHost: evil.example:${port}\r\n\r\n`);
    expect(answer.statusLine).toBe('HTTP/1.1 421 Misdirected Request');
  });
});

describe('a refused handshake', () => {
  it('does not hold close(): the socket is closed once the answer is out, even if the client keeps its side open', async () => {
    const own = await startTestEmulator();
    const ownPort = Number(new URL(own.apiUrl).port);
    const holder = connect({ host: '127.0.0.1', port: ownPort, allowHalfOpen: true });
    holder.on('error', () => undefined);
    let closing: Promise<string> | undefined;
    try {
      // The emulator answers and ends its side; this client never ends its own.
      const answered = new Promise<void>((resolve) => holder.once('end', () => resolve()));
      holder.resume();
      holder.write(`GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${ownPort}\r\n${HANDSHAKE}\r\n`);
      await answered;
      closing = own.close().then(() => 'closed');
      const bound = new Promise((resolve) => setTimeout(() => resolve('still open'), 2_000).unref());
      expect(await Promise.race([closing, bound])).toBe('closed');
    } finally {
      holder.destroy();
      await (closing ?? own.close());
    }
  });
});
