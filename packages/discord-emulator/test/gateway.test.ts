import { once } from 'node:events';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Events, type Client } from 'discord.js';
import { WebSocket } from 'ws';
import { generateGuilds, shardForGuild, type DiscordEmulator } from '../src/index.js';
import { APP_ID, GUILD_ID, TOKEN, loginClient, startTestEmulator } from './helpers.js';
import { identify, rawGateway as openRawGateway } from './raw-gateway.js';

let emu: DiscordEmulator | undefined;
const clients: Client[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const client of clients.splice(0)) await client.destroy();
  await emu?.close();
  emu = undefined;
});

async function login(e: DiscordEmulator, options: Parameters<typeof loginClient>[1] = {}) {
  const client = await loginClient(e, options);
  clients.push(client);
  return client;
}

const rawGateway = (e: DiscordEmulator, query?: string) => openRawGateway(e, { track: sockets, keepGuilds: true, ...(query ? { query } : {}) });

describe('gateway', () => {
  it('ACKs heartbeats; the client measures a ping', async () => {
    // Short enough for a quick test, long enough that a loaded machine answers each heartbeat
    // before the next: a missed ACK makes discord.js drop the connection as a zombie and connect
    // again, perhaps with a new session, so heartbeats are counted over every session of shard 0.
    emu = await startTestEmulator({ heartbeatIntervalMs: 150 });
    const client = await login(emu);
    const heartbeats = () => emu!.shards().reduce((n, s) => n + (s.shard[0] === 0 ? s.heartbeats : 0), 0);
    const deadline = Date.now() + 15_000;
    while ((heartbeats() < 3 || client.ws.status !== 0 || client.ws.ping < 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(heartbeats()).toBeGreaterThanOrEqual(3);
    expect(client.ws.ping).toBeGreaterThanOrEqual(0);
    expect(client.ws.status).toBe(0);
  });

  it('HELLO, IDENTIFY, READY and GUILD_CREATE over a bare socket, with sequence numbers', async () => {
    emu = await startTestEmulator();
    const g = await rawGateway(emu);
    const hello = await g.waitFor((p) => p.op === 10);
    expect(hello.d).toMatchObject({ heartbeat_interval: 41_250 });
    g.send({ op: 1, d: null });
    await g.waitFor((p) => p.op === 11);
    g.send(identify(TOKEN));
    const ready = await g.waitFor((p) => p.t === 'READY');
    expect(ready.s).toBe(1);
    expect(ready.d).toMatchObject({
      v: 10,
      user: { id: APP_ID, bot: true },
      guilds: [{ id: GUILD_ID, unavailable: true }],
      resume_gateway_url: emu.gatewayUrl,
      shard: [0, 1],
      application: { id: APP_ID, flags: 0 },
    });
    const guild = await g.waitFor((p) => p.t === 'GUILD_CREATE');
    expect(guild.s).toBe(2);
    expect(guild.d).toMatchObject({ id: GUILD_ID, unavailable: false, channels: [{ name: 'general' }, { name: 'feeds' }] });
  });

  it('refuses IDENTIFY with a wrong token (4004) and payloads before IDENTIFY (4003)', async () => {
    emu = await startTestEmulator();
    const bad = await rawGateway(emu);
    bad.send(identify('wrong-token'));
    expect(await bad.closed).toBe(4004);
    const early = await rawGateway(emu);
    early.send({ op: 3, d: { status: 'online', afk: false, since: null, activities: [] } });
    expect(await early.closed).toBe(4003);
  });

  it('a discord.js login with a wrong token fails on GET /gateway/bot with 401', async () => {
    emu = await startTestEmulator();
    await expect(loginClient(emu, {}, 'wrong-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
    expect(emu.violations.map((v) => `${v.status} ${v.route}`)).toEqual(['401 /gateway/bot']);
  });

  it('refuses privileged intents that are not enabled (4014)', async () => {
    emu = await startTestEmulator();
    const g = await rawGateway(emu);
    g.send(identify(TOKEN, [0, 1], 1 | (1 << 15)));
    expect(await g.closed).toBe(4014);
  });

  it('a 2-shard client gets every guild on the shard (guild_id >> 22) % 2', async () => {
    const guilds = generateGuilds(8);
    emu = await startTestEmulator({ guilds, shards: 2 });
    const client = await login(emu, { shards: 'auto' });
    expect(client.options.shardCount).toBe(2);
    expect(client.guilds.cache.size).toBe(8);
    const perShard = new Map<number, number>();
    for (const guild of client.guilds.cache.values()) {
      expect(guild.shardId).toBe(shardForGuild(guild.id, 2));
      perShard.set(guild.shardId, (perShard.get(guild.shardId) ?? 0) + 1);
    }
    expect(perShard.get(0)).toBe(4);
    expect(perShard.get(1)).toBe(4);
    const status = await emu.waitForReady({ shardCount: 2 });
    expect(status.map((s) => s.shard)).toEqual([[0, 2], [1, 2]]);
    // An interaction reaches the shard that owns its guild.
    emu.setCommands([{ name: 'ping', description: 'Ping' }]);
    const shardOf: number[] = [];
    client.on(Events.InteractionCreate, async (i) => {
      shardOf.push(i.guild!.shardId);
      if (i.isChatInputCommand()) await i.reply({ content: 'pong' });
    });
    const target = guilds.find((g) => shardForGuild(g.id, 2) === 1)!;
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping', guildId: target.id });
    const s = await h.waitForFinal();
    expect(s.shardId).toBe(1);
    expect(shardOf).toEqual([1]);
  });

  it('closes a shard that would hold more guilds than allowed with 4011 Sharding required', async () => {
    emu = await startTestEmulator({ guilds: generateGuilds(30), maxGuildsPerShard: 20 });
    const g = await rawGateway(emu);
    g.send(identify(TOKEN, [0, 1]));
    expect(await g.closed).toBe(4011);
    const ok = await rawGateway(emu);
    ok.send(identify(TOKEN, [1, 2]));
    await ok.waitFor((p) => p.t === 'READY');
  });

  it('sends a thousand guilds and the client caches them all', async () => {
    emu = await startTestEmulator({ guilds: generateGuilds(1000) });
    const client = await login(emu);
    expect(client.guilds.cache.size).toBe(1000);
    expect(emu.shards()[0]!.guilds).toBe(1000);
  });

  it('on op 7 the client resumes, and dispatches sent meanwhile are replayed', async () => {
    emu = await startTestEmulator();
    emu.setCommands([{ name: 'ping', description: 'Ping' }]);
    const client = await login(emu);
    const sessionId = emu.shards()[0]!.sessionId;
    const replies: string[] = [];
    client.on(Events.InteractionCreate, async (i) => {
      if (!i.isChatInputCommand()) return;
      replies.push(i.id);
      await i.reply({ content: 'after resume' });
    });
    const closed = new Promise<void>((resolve) => emu!.events.on('gateway', (e) => e.type === 'close' && resolve()));
    const resumed = new Promise<void>((resolve) => emu!.events.on('gateway', (e) => e.type === 'resume' && resolve()));
    expect(emu.requestReconnect()).toBe(1);
    await closed;
    // The shard is disconnected now: the dispatch waits in the session and is replayed on RESUME.
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await resumed;
    expect((await h.waitForFinal()).original?.content).toBe('after resume');
    expect(replies).toEqual([h.id]);
    expect(emu.shards().filter((s) => s.connected).map((s) => s.sessionId)).toEqual([sessionId]);
  });

  it('supports zlib-stream transport compression', async () => {
    emu = await startTestEmulator();
    const ws = new WebSocket(`${emu.gatewayUrl}?v=10&encoding=json&compress=zlib-stream`);
    sockets.push(ws);
    const inflate = zlib.createInflate();
    const payloads: { op: number; t?: string }[] = [];
    ws.on('message', (data: Buffer) => {
      inflate.write(data);
      inflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        let chunk: Buffer | null;
        while ((chunk = inflate.read() as Buffer | null) !== null) payloads.push(JSON.parse(chunk.toString('utf8')));
      });
    });
    await once(ws, 'open');
    const deadline = Date.now() + 3000;
    while (!payloads.some((p) => p.op === 10) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    ws.send(JSON.stringify(identify(TOKEN)));
    while (!payloads.some((p) => p.t === 'GUILD_CREATE') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(payloads.map((p) => p.t ?? p.op)).toEqual([10, 'READY', 'GUILD_CREATE']);
    inflate.close();
  });
});
