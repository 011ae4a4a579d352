/**
 * close() of POST /interactions as SIGTERM runs it behind a load balancer (main.ts: a grace
 * period, idle connections left to the proxy), over real sockets: nothing that reached the
 * endpoint is refused, since a proxy does not retry a POST it has sent.
 *
 * - During the grace period the endpoint answers as usual, keep-alive included.
 * - Then a new connection is refused (nginx passes the request to the next replica).
 * - An idle keep-alive connection is not closed under the proxy: a request sent on it is
 *   answered, with `Connection: close`, and the connection ends after the answer.
 * - A request in flight when the drain starts is answered with `Connection: close` too.
 * - close() resolves once the last connection is gone; close() without options still closes
 *   idle connections at once.
 */
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InteractionSigner, signInteraction } from '@feedbot/discord-emulator/testing';
import { InitialResponses } from '../../src/http/initial-response.js';
import { startInteractionsServer, type InteractionsServer, type InteractionsServerOptions } from '../../src/http/interactions-server.js';
import { MemorySeenInteractions } from '../../src/http/replay.js';
import { publicKeyFromHex } from '../../src/http/signature.js';
import { chatInput } from '../helpers/discord.js';
import { capturingLogger, collect, open, type RawAnswer } from './raw-client.js';

const signer = new InteractionSigner();
const closers: Array<() => Promise<unknown>> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function endpoint(overrides: Partial<InteractionsServerOptions> = {}): Promise<{ server: InteractionsServer; port: number; lines: Array<Record<string, unknown>> }> {
  const { logger, lines } = capturingLogger();
  const server = await startInteractionsServer({
    host: '127.0.0.1',
    port: 0,
    publicKey: publicKeyFromHex(signer.publicKey),
    seen: new MemorySeenInteractions(),
    responses: new InitialResponses(),
    dispatch: () => false,
    logger,
    ...overrides,
  });
  closers.push(() => server.close());
  return { server, port: Number(new URL(server.url).port), lines };
}

/** The bytes of a signed POST /interactions (HTTP/1.1: keep-alive unless told otherwise). */
function signedPost(payload: object): string {
  const { body, headers } = signInteraction(signer.privateKey, payload);
  const head = Object.entries({ host: 'a', 'content-length': String(Buffer.byteLength(body)), ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `POST /interactions HTTP/1.1\r\n${head.join('')}\r\n${body}`;
}

let pings = 0;
const ping = () => signedPost({ id: String(1_700_000_000_000_000_000n + BigInt(++pings)), application_id: '1200000000000000001', type: 1, token: 'ping-token', version: 1 });

async function connection(port: number): Promise<Socket> {
  const socket = await open(port);
  sockets.push(socket);
  return socket;
}

/** Sends `bytes` on `socket` and resolves with the answer's head (status line and headers). */
async function ask(socket: Socket, bytes: string): Promise<RawAnswer> {
  const answer = collect(socket, 3_000);
  socket.write(bytes);
  return answer;
}

const connectionHeader = (answer: RawAnswer) => /\r\nconnection: ([^\r]+)/i.exec(answer.text)?.[1]?.toLowerCase();

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('close({ graceMs, idle: "leave" }): SIGTERM behind a load balancer', () => {
  it('answers as usual during the grace period, then refuses new connections and answers what arrives on open ones with Connection: close', async () => {
    const { server, port, lines } = await endpoint();
    const idleBefore = await connection(port);
    const first = await ask(idleBefore, ping());
    expect(first.statusLine).toBe('HTTP/1.1 200 OK');
    expect(connectionHeader(first)).toBe('keep-alive');

    let closedAt: number | undefined;
    const startedAt = performance.now();
    const closing = server.close({ graceMs: 600, idle: 'leave' }).then(() => (closedAt = performance.now()));

    // The grace period: a new connection is accepted and kept alive, as before.
    await sleep(100);
    const duringGrace = await connection(port);
    const graced = await ask(duringGrace, ping());
    expect(graced.statusLine).toBe('HTTP/1.1 200 OK');
    expect(connectionHeader(graced)).toBe('keep-alive');

    // After it: refused, so a proxy passes the request on (nothing was sent).
    await sleep(700);
    expect(await refused(port)).toBe(true);

    // Idle connections were left open; a request on one is answered, and that connection ends.
    expect(idleBefore.destroyed).toBe(false);
    const ended = collect(idleBefore, 3_000, false);
    const late = await ask(idleBefore, ping());
    expect(late.statusLine).toBe('HTTP/1.1 200 OK');
    expect(connectionHeader(late)).toBe('close');
    expect((await ended).closed).toBe(true);

    // Still draining while the other idle connection is open: the client closes it, as nginx does
    // after its keepalive_timeout, and close() resolves.
    await sleep(200);
    expect(closedAt).toBeUndefined();
    duringGrace.end();
    await closing;
    expect(closedAt! - startedAt).toBeLessThan(3_000);
    expect(lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['interactions endpoint: answering as usual for the grace period, then closing the listener', 'interactions endpoint closed']),
    );
  });

  it('a request in flight when the drain starts is answered with Connection: close', async () => {
    const responses = new InitialResponses();
    const answer = responses.wrap(async () => {
      throw new Error('only the first response is expected');
    });
    const { server, port } = await endpoint({
      responses,
      dispatch: (raw) => {
        setTimeout(() => {
          void answer(`https://discord.test/api/v10/interactions/${String(raw.id)}/${String(raw.token)}/callback`, {
            method: 'POST',
            body: JSON.stringify({ type: 4, data: { content: 'done' } }),
          } as Parameters<typeof answer>[1]);
        }, 400);
        return true;
      },
    });
    const socket = await connection(port);
    const ended = collect(socket, 5_000, false);
    socket.write(signedPost(chatInput('stats', undefined)));
    await sleep(100);
    const closing = server.close({ idle: 'leave' });
    const all = await ended;
    expect(all.closed).toBe(true);
    expect(all.statusLine).toBe('HTTP/1.1 200 OK');
    expect(connectionHeader(all)).toBe('close');
    expect(all.text).toContain('"content":"done"');
    await closing;
  });

  it('the drain is bounded: an idle connection the client never closes is cut after drainMs', async () => {
    const { server, port } = await endpoint({ drainMs: 500 });
    const socket = await connection(port);
    await ask(socket, ping());
    const ended = collect(socket, 5_000, false);
    const startedAt = performance.now();
    await server.close({ idle: 'leave' });
    expect(performance.now() - startedAt).toBeGreaterThan(400);
    expect(performance.now() - startedAt).toBeLessThan(1_500);
    expect((await ended).closed).toBe(true);
  });
});

describe('close() without options', () => {
  it('closes idle keep-alive connections at once', async () => {
    const { server, port } = await endpoint();
    const socket = await connection(port);
    await ask(socket, ping());
    const ended = collect(socket, 3_000, false);
    const startedAt = performance.now();
    await server.close();
    expect(performance.now() - startedAt).toBeLessThan(500);
    expect((await ended).closed).toBe(true);
    expect(await refused(port)).toBe(true);
  });
});
