/**
 * At most N connections at a time from one address: beyond it a new connection is closed at once,
 * and a freed slot can be used again. Also: with the default limits, undici reuses its kept-alive
 * connection as it would against any server.
 */
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { sharedTestSandbox } from './helpers.js';
import { slowClient, type SlowClient } from './slow-client.js';

const MAX = 3;
const sb = sharedTestSandbox({ rateLimit: { limit: 1_000_000 }, connectionLimits: { maxConnectionsPerAddress: MAX } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /health on a new connection; retried for a while (the server notices a close asynchronously). */
async function healthOnNewConnection(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const agent = new Agent({ connect: { ca: sb().caPem }, headersTimeout: 3000, bodyTimeout: 3000 });
    try {
      const res = await request(`${sb().url}/health`, { dispatcher: agent });
      await res.body.text();
      return res.statusCode;
    } catch (err) {
      if (attempt >= 20) throw err;
      await sleep(100);
    } finally {
      await agent.destroy();
    }
  }
}

describe('connections per address', () => {
  it(`the connection beyond ${MAX} from one address is closed at once; the others stay open`, async () => {
    const held: SlowClient[] = [];
    try {
      for (let i = 0; i < MAX; i++) {
        const client = slowClient({ port: sb().port, boundMs: 8000 });
        await client.connected;
        held.push(client);
      }
      await sleep(100);
      const extra = await slowClient({ port: sb().port, boundMs: 3000 }).outcome;
      expect(extra.closedAfterMs, 'the extra connection was left open').not.toBeNull();
      expect(extra.closedAfterMs).toBeLessThan(1500);
      expect(extra.received).toBe('');
      expect(held.map((client) => client.socket.destroyed)).toEqual(Array(MAX).fill(false));

      held.pop()?.socket.destroy();
      expect(await healthOnNewConnection()).toBe(200);
    } finally {
      for (const client of held) client.socket.destroy();
    }
  });

  it('closed connections give their slot back', async () => {
    for (let i = 0; i < MAX * 3; i++) expect(await healthOnNewConnection()).toBe(200);
  });
});

describe('keep-alive with the default limits', () => {
  it('undici sends consecutive requests over one connection', async () => {
    const agent = new Agent({ connect: { ca: sb().caPem } });
    let connects = 0;
    agent.on('connect', () => connects++);
    try {
      for (let i = 0; i < 4; i++) {
        const res = await request(`${sb().url}/health`, { dispatcher: agent });
        expect(res.statusCode).toBe(200);
        expect(res.headers['keep-alive']).toBe('timeout=5');
        await res.body.text();
        await sleep(200);
      }
      expect(connects).toBe(1);
    } finally {
      await agent.close();
    }
  });
});
