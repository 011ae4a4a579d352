/**
 * Slow clients against the listeners feedbot owns, over real sockets.
 *
 * headersTimeout (5 s) must hold against a client sending one header byte every 2 s: Node looks
 * for expired requests only every `connectionsCheckingInterval` (30 s by default), which alone
 * lets it run to ~29 s. close() (SIGTERM in HTTP mode) must finish while a client dribbles a
 * chunked body, although server.close() also stops those checks: the drain is bounded, and an
 * interaction in flight still gets its answer within it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { InteractionSigner, signInteraction } from '@feedbot/discord-emulator/testing';
import { InitialResponses } from '../../src/http/initial-response.js';
import { startInteractionsServer, type InteractionsServer, type InteractionsServerOptions } from '../../src/http/interactions-server.js';
import { MemorySeenInteractions } from '../../src/http/replay.js';
import { publicKeyFromHex } from '../../src/http/signature.js';
import { startOpsServer } from '../../src/ops/http-server.js';
import { chatInput } from '../helpers/discord.js';
import { capturingLogger, collect, open } from './raw-client.js';

const closers: Array<() => Promise<unknown>> = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  await Promise.all(closers.splice(0).map((close) => close()));
});

const signer = new InteractionSigner();

async function interactionsServer(overrides: Partial<InteractionsServerOptions> = {}): Promise<{ server: InteractionsServer; port: number; lines: Array<Record<string, unknown>> }> {
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

/** Sends `first`, then `drip` every `everyMs` until the socket closes; resolves with what came back. */
async function dribble(port: number, first: string, drip: string, everyMs: number, timeoutMs: number) {
  const socket = await open(port);
  const answer = collect(socket, timeoutMs, false);
  socket.write(first);
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(drip);
  }, everyMs);
  timers.push(timer);
  const result = await answer;
  clearInterval(timer);
  socket.destroy();
  return result;
}

describe('a client that sends its headers one byte every 2 s', () => {
  it('is cut by headersTimeout (5 s) within about a second of it, on both listeners', async () => {
    const ops = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      logger: capturingLogger().logger,
      scrape: async () => ({ contentType: 'text/plain', body: '' }),
      readiness: async () => ({ ready: true, shards: {}, keyStore: 'ok', problems: [] }),
    });
    closers.push(() => ops.close());
    const { port } = await interactionsServer();
    const [fromOps, fromEndpoint] = await Promise.all([
      dribble(ops.port, 'GET /healthz HTTP/1.1\r\nHost: a\r\nX-Slow: ', 'x', 2_000, 15_000),
      dribble(port, 'POST /interactions HTTP/1.1\r\nHost: a\r\nX-Slow: ', 'x', 2_000, 15_000),
    ]);
    for (const cut of [fromOps, fromEndpoint]) {
      expect(cut.closed, 'the server closed the connection').toBe(true);
      expect(cut.text).toMatch(/^HTTP\/1\.1 408 /);
      // 5 s of headersTimeout, plus at most one check interval and a loaded machine's slack.
      expect(cut.elapsedMs).toBeGreaterThan(4_500);
      expect(cut.elapsedMs).toBeLessThan(8_000);
    }
  }, 20_000);
});

describe('close() (SIGTERM in HTTP mode) while a client dribbles a chunked body', () => {
  it('answers the interaction in flight, then closes what is left within the drain bound', async () => {
    const responses = new InitialResponses();
    const answer = responses.wrap(async () => {
      throw new Error('only the first response is expected');
    });
    let dispatched!: () => void;
    const wasDispatched = new Promise<void>((resolve) => (dispatched = resolve));
    const { server, port, lines } = await interactionsServer({
      responses,
      drainMs: 2_000,
      dispatch: (raw) => {
        dispatched();
        // The command takes 800 ms to answer: it is still running when the drain starts.
        setTimeout(() => {
          void answer(`https://discord.test/api/v10/interactions/${String(raw.id)}/${String(raw.token)}/callback`, {
            method: 'POST',
            body: JSON.stringify({ type: 4, data: { content: 'done' } }),
          } as Parameters<typeof answer>[1]);
        }, 800);
        return true;
      },
    });

    // The slow client: a signed-looking POST whose chunked body never ends.
    const socket = await open(port);
    const slowAnswer = collect(socket, 20_000, false);
    socket.write('POST /interactions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nX-Signature-Ed25519: 00\r\nX-Signature-Timestamp: 1\r\nTransfer-Encoding: chunked\r\n\r\n');
    const drip = setInterval(() => socket.writable && socket.write('1\r\na\r\n'), 1_000);
    timers.push(drip);

    const { body, headers } = signInteraction(signer.privateKey, chatInput('stats', undefined));
    const inFlight = request(`${server.url}/interactions`, { method: 'POST', body, headers });
    await wasDispatched;

    const startedAt = performance.now();
    const closed = server.close().then(() => performance.now() - startedAt);
    const answered = await inFlight;
    expect(answered.statusCode).toBe(200);
    expect(await answered.body.json()).toEqual({ type: 4, data: { content: 'done' } });

    const bounded = await Promise.race([closed, new Promise<string>((resolve) => setTimeout(() => resolve('still draining after 6 s'), 6_000))]);
    expect(bounded).toBeTypeOf('number');
    expect(bounded as number).toBeLessThan(3_500);
    expect((await slowAnswer).closed).toBe(true);
    // Cutting a client at the end of the drain is no error.
    expect(lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  }, 20_000);

  it('without requests in flight, close() is immediate', async () => {
    const { server } = await interactionsServer({ drainMs: 5_000 });
    const startedAt = performance.now();
    await server.close();
    expect(performance.now() - startedAt).toBeLessThan(500);
  });
});
