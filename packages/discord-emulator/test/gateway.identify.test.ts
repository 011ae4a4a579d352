/** Discord's limits on IDENTIFY: max_concurrency buckets per identify window, and the session start limit. */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { generateGuilds, type DiscordEmulator } from '../src/index.js';
import { TOKEN, loginClient, startTestEmulator } from './helpers.js';
import { identify, isInvalidSession, isReady, lastSeq, nextGatewayEvent, rawGateway, resume, until, type RawGateway } from './raw-gateway.js';

let emu: DiscordEmulator | undefined;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await emu?.close();
  emu = undefined;
});

/** Connections that have had their HELLO. */
async function connect(e: DiscordEmulator, n: number): Promise<RawGateway[]> {
  const gateways = await Promise.all(Array.from({ length: n }, () => rawGateway(e, { track: sockets })));
  await Promise.all(gateways.map((g) => g.waitFor((p) => p.op === 10)));
  return gateways;
}

async function gatewayBot(e: DiscordEmulator): Promise<{ shards: number; session_start_limit: Record<string, number> }> {
  const res = await fetch(`${e.restUrl}/gateway/bot`, { headers: { authorization: `Bot ${TOKEN}` } });
  return (await res.json()) as { shards: number; session_start_limit: Record<string, number> };
}

/** Which of two connections that identified together got the session, and which got op 9. */
async function race(a: RawGateway, b: RawGateway): Promise<{ winner: RawGateway; loser: RawGateway }> {
  await until(() => [a, b].some((g) => g.received.some(isReady)) && [a, b].some((g) => g.received.some(isInvalidSession)), 3000, 'one READY and one op 9');
  return a.received.some(isReady) ? { winner: a, loser: b } : { winner: b, loser: a };
}

describe('identify rate limit (max_concurrency)', () => {
  it('one IDENTIFY per bucket (shard_id % max_concurrency) per window: the second gets op 9, other buckets identify together', async () => {
    emu = await startTestEmulator({ guilds: generateGuilds(8), maxConcurrency: 2, identifyWindowMs: 400 });
    const [zero, two, one] = await connect(emu, 3);
    const refusedEvent = nextGatewayEvent(emu, 'invalid_session');
    // Shards 0 and 2 of 4 share bucket 0; shard 1 is alone in bucket 1.
    zero!.send(identify(TOKEN, [0, 4]));
    two!.send(identify(TOKEN, [2, 4]));
    one!.send(identify(TOKEN, [1, 4]));
    const { winner, loser } = await race(zero!, two!);
    await one!.waitFor(isReady);
    expect(loser.received.find(isInvalidSession)).toMatchObject({ op: 9, d: false });
    expect(loser.received.some(isReady)).toBe(false);
    const [winnerShard, loserShard]: [number, number][] = winner === zero ? [[0, 4], [2, 4]] : [[2, 4], [0, 4]];
    expect(await refusedEvent).toMatchObject({ type: 'invalid_session', shard: loserShard, detail: 'identify_rate_limited' });
    expect(emu.violations).toEqual([
      expect.objectContaining({ kind: 'identify_rate_limited', status: 0, route: '/gateway', body: expect.objectContaining({ shard: loserShard, bucket: 0 }) }),
    ]);
    expect(emu.identifyBuckets().map((b) => b.bucket)).toEqual([0, 1]);
    expect(emu.shards().map((s) => s.shard)).toEqual(expect.arrayContaining([winnerShard, [1, 4]]));
    expect(emu.shards()).toHaveLength(2);

    // The refused connection stays open, unauthenticated: once the window is over it identifies.
    const bucket = emu.identifyBuckets()[0]!;
    await new Promise((r) => setTimeout(r, bucket.nextIdentifyAt - Date.now() + 20));
    loser.send(identify(TOKEN, loserShard));
    await loser.waitFor(isReady);
    expect(emu.violations).toHaveLength(1);
    expect(emu.sessionStartLimit()).toMatchObject({ total: 1000, remaining: 997, max_concurrency: 2 });
  });

  it('identifyWindowMs: 0 turns the check off', async () => {
    emu = await startTestEmulator({ maxConcurrency: 1, identifyWindowMs: 0 });
    const gateways = await connect(emu, 3);
    gateways.forEach((g, i) => g.send(identify(TOKEN, [i, 3])));
    await Promise.all(gateways.map((g) => g.waitFor(isReady)));
    expect(emu.violations).toEqual([]);
  });
});

describe('session start limit', () => {
  it('GET /gateway/bot counts the IDENTIFYs made; RESUMEs are free; with none left IDENTIFY gets op 9 and discord.js will not log in', async () => {
    emu = await startTestEmulator({ guilds: generateGuilds(6), sessionStartLimit: 3, shards: 3 });
    expect(await gatewayBot(emu)).toMatchObject({ shards: 3, session_start_limit: { total: 3, remaining: 3, reset_after: 86_400_000, max_concurrency: 16 } });

    const gateways = await connect(emu, 3);
    gateways.forEach((g, i) => g.send(identify(TOKEN, [i, 3])));
    await Promise.all(gateways.map((g) => g.waitFor(isReady)));
    const limit = (await gatewayBot(emu)).session_start_limit;
    expect(limit).toMatchObject({ total: 3, remaining: 0, max_concurrency: 16 });
    expect(limit.reset_after!).toBeLessThanOrEqual(86_400_000);
    expect(limit.reset_after!).toBeGreaterThan(86_400_000 - 60_000);

    // A RESUME right away, inside the identify window of its bucket and with no session start left.
    const first = gateways[0]!;
    const sessionId = (first.received.find(isReady)!.d as { session_id: string }).session_id;
    const closed = nextGatewayEvent(emu, 'close');
    expect(emu.dropConnection(0)).toBe(1);
    await closed;
    const [again] = await connect(emu, 1);
    again!.send(resume(TOKEN, sessionId, lastSeq(first)));
    await again!.waitFor((p) => p.t === 'RESUMED');
    expect(emu.shards().find((s) => s.sessionId === sessionId)).toMatchObject({ connected: true });

    const [late] = await connect(emu, 1);
    late!.send(identify(TOKEN, [0, 3]));
    expect(await late!.waitFor(isInvalidSession)).toMatchObject({ d: false });
    expect(emu.violations.map((v) => v.kind)).toEqual(['session_start_limit']);
    expect(emu.sessionStartLimit().remaining).toBe(0);

    // discord.js checks session_start_limit before connecting a shard.
    await expect(loginClient(emu, { shards: [0], shardCount: 3 })).rejects.toThrow(/Not enough sessions remaining/);
  });

  it('the period renews: remaining is back to total once reset_after has passed', async () => {
    emu = await startTestEmulator({ sessionStartLimit: 1, sessionStartPeriodMs: 300 });
    const [g] = await connect(emu, 1);
    g!.send(identify(TOKEN));
    await g!.waitFor(isReady);
    expect(emu.sessionStartLimit()).toMatchObject({ remaining: 0 });
    await new Promise((r) => setTimeout(r, emu!.sessionStartLimit().reset_after + 20));
    expect(emu.sessionStartLimit()).toMatchObject({ total: 1, remaining: 1, reset_after: 300 });
  });
});
