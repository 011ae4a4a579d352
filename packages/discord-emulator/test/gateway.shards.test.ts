/**
 * Many shards and many guilds: the 2,500-guilds-per-shard rule over 20,000 generated guilds, and
 * shards of one bot run by several clients (processes), each ready with its own guilds.
 *
 * `EMULATOR_SCALE_GUILDS=100000 EMULATOR_SCALE_SHARDS=100 npx vitest run packages/discord-emulator/test/gateway.shards.test.ts`
 * also measures how long every shard's GUILD_CREATEs take to arrive.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from 'discord.js';
import type { WebSocket } from 'ws';
import { CloseCode, generateGuilds, shardForGuild, type DiscordEmulator } from '../src/index.js';
import { TOKEN, loginClient, startTestEmulator } from './helpers.js';
import { identify, isReady, rawGateway, until, windowThrottler, type RawGateway } from './raw-gateway.js';

let emu: DiscordEmulator | undefined;
const sockets: WebSocket[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const client of clients.splice(0)) await client.destroy();
  await emu?.close();
  emu = undefined;
});

/** Identifies shards 0..count-1 of `count` over bare sockets; resolves when each has all its guilds, with its GUILD_CREATE count. */
async function identifyAll(e: DiscordEmulator, count: number, timeoutMs: number): Promise<number[]> {
  const gateways: RawGateway[] = await Promise.all(Array.from({ length: count }, () => rawGateway(e, { track: sockets })));
  await Promise.all(gateways.map((g) => g.waitFor((p) => p.op === 10)));
  gateways.forEach((g, id) => g.send(identify(TOKEN, [id, count])));
  const expected = await Promise.all(gateways.map(async (g) => ((await g.waitFor(isReady, timeoutMs)).d as { guilds: unknown[] }).guilds.length));
  await until(() => gateways.every((g, id) => (g.counts.get('GUILD_CREATE') ?? 0) === expected[id]), timeoutMs, 'every GUILD_CREATE');
  return gateways.map((g) => g.counts.get('GUILD_CREATE')!);
}

describe('many guilds over many shards', () => {
  it('20,000 guilds: 7 shards would hold more than 2,500 each (4011), 8 shards get 2,500 each', async () => {
    emu = await startTestEmulator({ guilds: generateGuilds(20_000) });
    expect(emu.recommendedShards()).toBe(20);
    const tooFew = await rawGateway(emu, { track: sockets });
    tooFew.send(identify(TOKEN, [3, 7]));
    expect(await tooFew.closed).toBe(CloseCode.ShardingRequired);
    // Refused before the limits: no session start was used.
    expect(emu.sessionStartLimit().remaining).toBe(1000);

    const perShard = await identifyAll(emu, 8, 20_000);
    expect(perShard).toEqual(Array(8).fill(2500));
    const ready = await emu.waitForReady({ shardCount: 8 });
    expect(ready.map((s) => [s.shard[0], s.guilds])).toEqual(perShard.map((n, id) => [id, n]));
    expect(emu.sessionStartLimit().remaining).toBe(992);
    expect(emu.violations).toEqual([]);
  }, 30_000);

  const scaleGuilds = Number(process.env.EMULATOR_SCALE_GUILDS ?? 0);
  it.runIf(scaleGuilds > 0)(`measures ${scaleGuilds} guilds over EMULATOR_SCALE_SHARDS shards`, async () => {
    const shards = Number(process.env.EMULATOR_SCALE_SHARDS ?? 48);
    let started = performance.now();
    emu = await startTestEmulator({ guilds: generateGuilds(scaleGuilds), maxConcurrency: shards });
    const startMs = performance.now() - started;
    started = performance.now();
    const perShard = await identifyAll(emu, shards, 120_000);
    const guildsMs = performance.now() - started;
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(scaleGuilds);
    const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    console.info(`emulator: ${scaleGuilds} guilds, ${shards} shards: started in ${Math.round(startMs)} ms; every GUILD_CREATE received in ${Math.round(guildsMs)} ms; rss ${rssMb} MiB`);
  }, 180_000);
});

describe('shards of one bot in several processes', () => {
  it('a client running shards [0,1] of 4 and another running [2,3] are each ready with their guilds', async () => {
    const guilds = generateGuilds(400);
    emu = await startTestEmulator({ guilds, shards: 4 });
    const first = await loginClient(emu, { shards: [0, 1], shardCount: 4 });
    clients.push(first);
    // The first process's shards are ready while the second has not started.
    expect((await emu.waitForReady({ shardCount: 4, shardIds: [0, 1] })).map((s) => s.shard)).toEqual([[0, 4], [1, 4]]);
    await expect(emu.waitForReady({ shardCount: 4, timeoutMs: 200 })).rejects.toThrow(/not reached/);
    const second = await loginClient(emu, { shards: [2, 3], shardCount: 4 });
    clients.push(second);
    expect((await emu.waitForReady({ shardCount: 4 })).map((s) => s.shard)).toEqual([[0, 4], [1, 4], [2, 4], [3, 4]]);

    const owned = (ids: number[]) => guilds.filter((g) => ids.includes(shardForGuild(g.id, 4))).map((g) => g.id).sort();
    expect([...first.guilds.cache.keys()].sort()).toEqual(owned([0, 1]));
    expect([...second.guilds.cache.keys()].sort()).toEqual(owned([2, 3]));
    expect(first.guilds.cache.size + second.guilds.cache.size).toBe(400);
    expect(emu.violations).toEqual([]);
  });

  it('two processes whose shards share a bucket identify at once: one gets op 9, identifies again after the window, both are ready', async () => {
    // A window long enough that the two logins, started together, fall in it even on a busy machine.
    emu = await startTestEmulator({ guilds: generateGuilds(64), maxConcurrency: 16, identifyWindowMs: 1000 });
    // Shards 0 and 16 of 32: both in bucket 0. Each process throttles only its own shards.
    const ws = { buildIdentifyThrottler: () => windowThrottler(16, 1000) };
    const both = await Promise.all([loginClient(emu, { shards: [0], shardCount: 32, ws }), loginClient(emu, { shards: [16], shardCount: 32, ws })]);
    clients.push(...both);
    expect((await emu.waitForReady({ shardCount: 32, shardIds: [0, 16] })).map((s) => s.guilds)).toEqual([2, 2]);
    expect(emu.violations.length).toBeGreaterThanOrEqual(1);
    for (const v of emu.violations) expect(v).toMatchObject({ kind: 'identify_rate_limited', body: { bucket: 0 } });
    expect(both.map((c) => c.guilds.cache.size)).toEqual([2, 2]);
  });
});
