/**
 * Issue 20: the playground answers a request target it cannot parse with 400 at once and keeps
 * serving. Node's HTTP parser accepts targets such as `//x:99999/` or `http://[`; `new URL()`
 * throws on them. Before, that ended in the request's catch-all: a 500 "internal error" and an
 * error-level log line for every such request.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { startPlayground, type RunningPlayground } from '../src/playground.js';

const GUILD_ID = '222222222222222222';
/** Targets Node's parser lets through and no URL parser accepts. */
const UNPARSABLE_TARGETS = ['//x:99999/', 'http://[', '//[::1/', 'http://a:b@[/x', '//x:99999/api/state'];

let emulator: DiscordEmulator;
let playground: RunningPlayground;
const lines: Array<{ level: number; msg?: string }> = [];

beforeAll(async () => {
  emulator = await startEmulator({
    applicationId: '111111111111111111',
    botToken: 'playground-test-token',
    guilds: [{ id: GUILD_ID, name: 'Demo', ownerId: '444444444444444444', channels: [{ id: '222222222222222223', name: 'general', type: 0 }], roles: [], members: [] }],
  });
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as { level: number });
      done();
    },
  });
  const nobody = { userId: '1', username: 'x', displayName: 'x', permissions: '0', avatar: '' };
  playground = await startPlayground({
    emulator,
    guildId: GUILD_ID,
    actors: { admin: nobody, member: nobody },
    botAvatar: '',
    sandboxOrigin: 'https://127.0.0.1:9',
    sandboxCaPem: '',
    demoKey: '',
    notes: () => [],
    botRunning: () => false,
    port: 0,
    logger: pino({ level: 'debug' }, destination),
  });
});

afterAll(async () => {
  await playground?.close();
  await emulator?.close();
});

/** Writes `bytes` on a new connection; resolves with the status line at the answer's headers, the close, or 3 s. */
function sendRaw(bytes: string): Promise<{ statusLine: string | undefined; elapsedMs: number }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: playground.port });
    let text = '';
    let startedAt = performance.now();
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLine: text.includes('\r\n') ? text.slice(0, text.indexOf('\r\n')) : undefined, elapsedMs: performance.now() - startedAt });
    };
    const timer = setTimeout(finish, 3_000);
    socket.once('connect', () => {
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

describe('a request target the playground cannot parse', () => {
  const host = () => `Host: 127.0.0.1:${playground.port}\r\n`;

  it.each(UNPARSABLE_TARGETS)('%s: 400 at once, no error line, and the playground keeps serving', async (target) => {
    const before = lines.length;
    for (const method of ['GET', 'POST']) {
      const answer = await sendRaw(`${method} ${target} HTTP/1.1\r\n${host()}Content-Length: 0\r\n\r\n`);
      expect(answer.statusLine, `${method} ${target}`).toBe('HTTP/1.1 400 Bad Request');
      expect(answer.elapsedMs).toBeLessThan(1_000);
    }
    expect(lines.slice(before).filter((line) => line.level > 20)).toEqual([]);
    expect((await sendRaw(`GET /api/state HTTP/1.1\r\n${host()}\r\n`)).statusLine).toBe('HTTP/1.1 200 OK');
    expect((await sendRaw(`GET /static/style.css HTTP/1.1\r\n${host()}\r\n`)).statusLine).toBe('HTTP/1.1 200 OK');
  });

  it('a foreign Host is still refused first (421)', async () => {
    const answer = await sendRaw(`GET http://[ HTTP/1.1\r\nHost: evil.example:${playground.port}\r\n\r\n`);
    expect(answer.statusLine).toBe('HTTP/1.1 421 Misdirected Request');
  });
});
