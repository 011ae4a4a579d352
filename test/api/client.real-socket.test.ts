/**
 * The transport paths MockAgent cannot exercise: real sockets on 127.0.0.1 (time-outs while
 * waiting for headers or mid-body, a refused port, an oversized body) through a real undici Agent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedApiClient } from '../../src/api/client.js';
import { ConnectionError, InvalidResponseError, TimeoutError } from '../../src/api/errors.js';
import { MAX_BODY_BYTES } from '../../src/api/http.js';
import { AUTH, NEW_FEED, STATS, rejection } from './helpers.js';

let server: Server;
let agent: Agent;
let hits: string[];
let handler: (req: IncomingMessage, res: ServerResponse) => void;

async function listen(): Promise<number> {
  server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

beforeEach(() => {
  hits = [];
  agent = new Agent({ connections: 10 });
});

afterEach(async () => {
  await agent.destroy();
  if (server?.listening) {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

const client = (port: number, extra: Partial<ConstructorParameters<typeof FeedApiClient>[0]> = {}) =>
  new FeedApiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, dispatcher: agent, timeoutMs: 150, retryBaseMs: 1, ...extra });

describe('real sockets', () => {
  it('a server that never answers → TimeoutError after retries (GET)', async () => {
    handler = () => undefined; // hold the request open
    const port = await listen();
    const err = (await rejection(client(port).getStats(AUTH))) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.attempts).toBe(3);
    expect(hits).toHaveLength(3);
  });

  it('headers on time but a body that stalls → TimeoutError, POST sent once', async () => {
    handler = (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.write('{"id":');
    };
    const port = await listen();
    const err = (await rejection(client(port).createFeed(AUTH, NEW_FEED))) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.attempts).toBe(1);
    expect(hits).toEqual(['POST /v1/feeds']);
  });

  it('a refused port → ConnectionError (ECONNREFUSED); even POST retries, since nothing was sent', async () => {
    handler = () => undefined;
    const port = await listen();
    await new Promise<void>((r) => server.close(() => r()));
    const err = (await rejection(client(port).createFeed(AUTH, NEW_FEED))) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.systemCode).toBe('ECONNREFUSED');
    expect(err.attempts).toBe(3);
  });

  it('an oversized body is cut off → InvalidResponseError', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"x":"${'a'.repeat(MAX_BODY_BYTES)}"}`);
    };
    const port = await listen();
    const err = (await rejection(client(port, { timeoutMs: 5000 }).getStats(AUTH))) as InvalidResponseError;
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect(err.issues[0]).toMatch(/too large/);
  });

  it('a normal answer over a real socket, with the Bearer header', async () => {
    let authHeader: string | undefined;
    handler = (req, res) => {
      authHeader = req.headers.authorization;
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60) });
      res.end(JSON.stringify(STATS));
    };
    const port = await listen();
    const c = client(port);
    await expect(c.getStats(AUTH)).resolves.toEqual(STATS);
    expect(authHeader).toBe(`Bearer ${AUTH.apiKey}`);
    expect((await c.gateState(AUTH.apiKey)).remaining).toBe(9);
  });
});
