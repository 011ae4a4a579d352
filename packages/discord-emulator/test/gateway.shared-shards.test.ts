/**
 * Several sessions on one shard, as Discord allows ("You can establish multiple sessions with the
 * same [shard_id, num_shards], or sessions with different num_shards values", Gateway › Sharding):
 * a blue/green deploy runs the old and the new process side by side, a resharding runs the old
 * set of shards beside the new one. No session is kicked; each gets every event of its guilds,
 * interactions included, and the first interaction callback wins (the second: 400 40060).
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAPIError, Events, type Client, type Interaction } from 'discord.js';
import type { WebSocket } from 'ws';
import { generateGuilds, NoGatewaySessionError, shardForGuild, type DiscordEmulator, type EmulatedGuild } from '../src/index.js';
import { TOKEN, loginClient, startTestEmulator } from './helpers.js';
import { identify, isReady, rawGateway, until, type Payload, type RawGateway } from './raw-gateway.js';

let emu: DiscordEmulator | undefined;
const sockets: WebSocket[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const client of clients.splice(0)) await client.destroy();
  await emu?.close();
  emu = undefined;
});

const PING = [{ name: 'ping', description: 'Ping' }];

async function gatewayBot(e: DiscordEmulator): Promise<{ session_start_limit: Record<string, number> }> {
  const res = await fetch(`${e.restUrl}/gateway/bot`, { headers: { authorization: `Bot ${TOKEN}` } });
  return (await res.json()) as { session_start_limit: Record<string, number> };
}

/** Opens a bare connection, identifies for `shard` and waits for all its GUILD_CREATEs. */
async function identified(e: DiscordEmulator, shard: [number, number]): Promise<RawGateway> {
  const g = await rawGateway(e, { track: sockets });
  await g.waitFor((p) => p.op === 10);
  g.send(identify(TOKEN, shard));
  const ready = await g.waitFor(isReady);
  const expected = (ready.d as { guilds: unknown[] }).guilds.length;
  await until(() => (g.counts.get('GUILD_CREATE') ?? 0) === expected, 3000, `GUILD_CREATEs of shard ${shard.join('/')}`);
  return g;
}

const sessionIdOf = (g: RawGateway) => (g.received.find(isReady)!.d as { session_id: string }).session_id;
const guildCreates = (g: RawGateway) => g.received.filter((p) => p.t === 'GUILD_CREATE').map((p) => (p.d as { id: string }).id).sort();
const dispatches = (g: RawGateway, t: string): Payload[] => g.received.filter((p) => p.t === t);
const interactionIds = (g: RawGateway) => dispatches(g, 'INTERACTION_CREATE').map((p) => (p.d as { id: string }).id);
const ownedBy = (guilds: EmulatedGuild[], shard: [number, number]) => guilds.filter((g) => shardForGuild(g.id, shard[1]) === shard[0]).map((g) => g.id).sort();

/** One POST to an interaction's callback route, as a bot's REST client sends it. */
async function callback(e: DiscordEmulator, d: { id: string; token: string }, content: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${e.restUrl}/interactions/${d.id}/${d.token}/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 4, data: { content } }),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

describe('two sessions identified for the same shard (blue/green deploy)', () => {
  it('two discord.js clients: both stay connected, both get the interaction; the first reply wins, the second gets 40060', async () => {
    const [guild] = generateGuilds(1);
    // The identify window is not what this test is about: the new process logs in right away.
    emu = await startTestEmulator({ guilds: [guild!], identifyWindowMs: 0 });
    emu.setCommands(PING);
    expect((await gatewayBot(emu)).session_start_limit).toMatchObject({ total: 1000, remaining: 1000 });

    const blue = await loginClient(emu);
    clients.push(blue);
    expect((await gatewayBot(emu)).session_start_limit.remaining).toBe(999);
    const green = await loginClient(emu);
    clients.push(green);
    // Each IDENTIFY takes a session start, whichever shard it is for.
    expect((await gatewayBot(emu)).session_start_limit.remaining).toBe(998);

    // The older session was not kicked: both hold shard [0, 1], with the guild.
    expect(emu.shards()).toHaveLength(2);
    expect(emu.shards()).toEqual([expect.objectContaining({ shard: [0, 1], connected: true, guilds: 1 }), expect.objectContaining({ shard: [0, 1], connected: true, guilds: 1 })]);
    expect([...blue.guilds.cache.keys()]).toEqual([guild!.id]);
    expect([...green.guilds.cache.keys()]).toEqual([guild!.id]);

    const seen: Record<string, string[]> = { blue: [], green: [] };
    const failures: Record<string, unknown[]> = { blue: [], green: [] };
    const answer = (name: 'blue' | 'green') => async (i: Interaction) => {
      if (!i.isChatInputCommand()) return;
      seen[name]!.push(i.id);
      await i.reply({ content: `pong from ${name}` }).catch((error: unknown) => failures[name]!.push(error));
    };
    blue.on(Events.InteractionCreate, answer('blue'));
    green.on(Events.InteractionCreate, answer('green'));

    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    await until(() => failures.blue!.length + failures.green!.length === 1, 3000, 'the second reply refused');
    expect(seen).toEqual({ blue: [h.id], green: [h.id] });
    expect(s.dispatchedTo.map((t) => t.sessionId).sort()).toEqual(emu.shards().map((x) => x.sessionId).sort());
    expect(s.dispatchedTo.map((t) => t.shard)).toEqual([[0, 1], [0, 1]]);

    // Whichever answered first is the reply; the other got Discord's 40060.
    const [loser] = (['blue', 'green'] as const).filter((name) => failures[name]!.length === 1);
    const winner = loser === 'blue' ? 'green' : 'blue';
    expect(h.snapshot().original?.content).toBe(`pong from ${winner}`);
    const error = failures[loser!]![0];
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 400, code: 40060, rawError: { message: 'Interaction has already been acknowledged.', code: 40060 } });

    // The count a test reads to check "answered exactly once": two callbacks, one accepted.
    const final = h.snapshot();
    expect(final).toMatchObject({ state: 'acknowledged', callbacks: 2, ack: { type: 4 } });
    expect(final.errors.map((e) => e.code)).toEqual([40060]);
    expect(emu.violations.map((v) => v.kind)).toEqual(['already_acknowledged']);
    expect(emu.calls.filter((c) => c.route === '/interactions/:id/:token/callback').map((c) => c.status).sort()).toEqual([204, 400]);
  });

  it('two discord.js clients both get the guild events: CHANNEL_DELETE, GUILD_ROLE_UPDATE, GUILD_DELETE, GUILD_CREATE', async () => {
    const [guild] = generateGuilds(1);
    emu = await startTestEmulator({ guilds: [guild!], identifyWindowMs: 0 });
    const both = [await loginClient(emu), await loginClient(emu)];
    clients.push(...both);
    const channelId = guild!.channels.find((c) => c.type === 0)!.id;
    const roleId = guild!.roles.find((r) => r.id !== guild!.id)!.id;
    const timeout = () => ({ signal: AbortSignal.timeout(3000) });

    const deleted = both.map((c) => once(c, Events.ChannelDelete, timeout()));
    emu.deleteChannel(channelId);
    for (const [channel] of await Promise.all(deleted)) expect(channel).toMatchObject({ id: channelId });
    for (const c of both) expect(c.channels.cache.has(channelId)).toBe(false);

    const updated = both.map((c) => once(c, Events.GuildRoleUpdate, timeout()));
    emu.setRolePermissions(guild!.id, roleId, '0');
    for (const [, role] of await Promise.all(updated)) expect(role).toMatchObject({ id: roleId });

    const left = both.map((c) => once(c, Events.GuildDelete, timeout()));
    expect(emu.removeBotFromGuild(guild!.id)).toEqual([0, 0]);
    await Promise.all(left);
    for (const c of both) expect(c.guilds.cache.has(guild!.id)).toBe(false);

    const back = both.map((c) => once(c, Events.GuildCreate, timeout()));
    expect(emu.addBotToGuild(guild!.id)).toEqual([0, 0]);
    await Promise.all(back);
    for (const c of both) expect(c.guilds.cache.has(guild!.id)).toBe(true);
    expect(emu.violations).toEqual([]);
  });

  it('bare sessions on shard [1, 2]: the same guilds at READY, the same INTERACTION_CREATE; concurrent callbacks: one 204, one 400 40060', async () => {
    const guilds = generateGuilds(8);
    emu = await startTestEmulator({ guilds, identifyWindowMs: 0 });
    emu.setCommands(PING);
    const a = await identified(emu, [1, 2]);
    const b = await identified(emu, [1, 2]);
    expect(sessionIdOf(a)).not.toBe(sessionIdOf(b));
    expect(guildCreates(a)).toEqual(ownedBy(guilds, [1, 2]));
    expect(guildCreates(b)).toEqual(ownedBy(guilds, [1, 2]));
    expect(emu.sessionStartLimit().remaining).toBe(998);

    const guildId = ownedBy(guilds, [1, 2])[0]!;
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping', guildId });
    await until(() => interactionIds(a).length === 1 && interactionIds(b).length === 1, 3000, 'INTERACTION_CREATE on both sessions');
    const [fromA] = dispatches(a, 'INTERACTION_CREATE');
    const [fromB] = dispatches(b, 'INTERACTION_CREATE');
    // The same interaction (id and token), each with its session's own sequence number.
    expect(fromA!.d).toEqual(fromB!.d);
    expect(fromA!.d).toEqual(h.payload);
    expect(h.snapshot().dispatchedTo).toEqual(
      expect.arrayContaining([
        { sessionId: sessionIdOf(a), shard: [1, 2] },
        { sessionId: sessionIdOf(b), shard: [1, 2] },
      ]),
    );

    // Both answer at once, as two processes do.
    const d = fromA!.d as { id: string; token: string };
    const answers = await Promise.all([callback(emu, d, 'from a'), callback(emu, d, 'from b')]);
    expect(answers.map((x) => x.status).sort()).toEqual([204, 400]);
    expect(answers.find((x) => x.status === 400)!.body).toEqual({ code: 40060, message: 'Interaction has already been acknowledged.' });
    const s = h.snapshot();
    expect(s).toMatchObject({ state: 'acknowledged', callbacks: 2 });
    expect(['from a', 'from b']).toContain(s.original?.content);
    expect(emu.violations).toEqual([expect.objectContaining({ kind: 'already_acknowledged', status: 400, code: 40060, interactionId: h.id })]);

    // A guild of shard 0 has no session: nobody to deliver it to.
    const other = ownedBy(guilds, [0, 2])[0]!;
    expect(() => emu!.sendInteraction({ type: 'command', commandName: 'ping', guildId: other })).toThrow(NoGatewaySessionError);
  });

  it('a session waiting for its RESUME gets the interaction on replay; the connected one at once', async () => {
    const guilds = generateGuilds(2);
    emu = await startTestEmulator({ guilds, identifyWindowMs: 0 });
    emu.setCommands(PING);
    const a = await identified(emu, [0, 1]);
    const b = await identified(emu, [0, 1]);
    b.ws.terminate();
    await until(() => emu!.shards().filter((x) => x.connected).length === 1, 3000, 'b disconnected');
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await a.waitFor((p) => p.t === 'INTERACTION_CREATE');
    expect(h.snapshot().dispatchedTo.map((t) => t.sessionId).sort()).toEqual([sessionIdOf(a), sessionIdOf(b)].sort());

    const again = await rawGateway(emu, { track: sockets });
    await again.waitFor((p) => p.op === 10);
    const seq = Math.max(...b.received.map((p) => p.s ?? 0));
    again.send({ op: 6, d: { token: TOKEN, session_id: sessionIdOf(b), seq } });
    await again.waitFor((p) => p.t === 'RESUMED');
    expect(interactionIds(again)).toEqual([h.id]);
  });
});

describe('two sets of shards with different counts (resharding from 4 to 6)', () => {
  it('each session gets the guilds and events of its own shard by its own count', async () => {
    const guilds = generateGuilds(24);
    // Long enough that no interaction expires while the test reads them.
    emu = await startTestEmulator({ guilds, identifyWindowMs: 0, ackDeadlineMs: 60_000 });
    emu.setCommands(PING);
    const shards: [number, number][] = [...Array.from({ length: 4 }, (_, id): [number, number] => [id, 4]), ...Array.from({ length: 6 }, (_, id): [number, number] => [id, 6])];
    const sessions = await Promise.all(shards.map((shard) => identified(emu!, shard)));
    expect(emu.shards()).toHaveLength(10);
    expect(emu.sessionStartLimit().remaining).toBe(990);
    // GUILD_CREATE at READY: (guild_id >> 22) % num_shards, per session.
    shards.forEach((shard, i) => expect(guildCreates(sessions[i]!), `shard ${shard.join('/')}`).toEqual(ownedBy(guilds, shard)));
    const old = sessions.slice(0, 4).flatMap(guildCreates);
    const resharded = sessions.slice(4).flatMap(guildCreates);
    expect(old.sort()).toEqual(guilds.map((g) => g.id).sort());
    expect(resharded.sort()).toEqual(guilds.map((g) => g.id).sort());

    /** The session of each set that holds `guildId`. */
    const holders = (guildId: string) => shards.map((shard, i) => ({ shard, g: sessions[i]! })).filter(({ shard }) => shardForGuild(guildId, shard[1]) === shard[0]);

    // An interaction in every guild reaches exactly the two sessions that hold it, one per set.
    const handles = guilds.map((g) => emu!.sendInteraction({ type: 'command', commandName: 'ping', guildId: g.id }));
    await until(() => sessions.reduce((n, g) => n + interactionIds(g).length, 0) === 2 * guilds.length, 3000, 'every INTERACTION_CREATE');
    for (const [i, g] of guilds.entries()) {
      const expected = holders(g.id);
      expect(expected.map((x) => x.shard[1])).toEqual([4, 6]);
      const got = shards.filter((_, k) => interactionIds(sessions[k]!).includes(handles[i]!.id));
      expect(got, `guild ${g.id}`).toEqual(expected.map((x) => x.shard));
      expect(handles[i]!.snapshot().dispatchedTo.map((t) => t.shard).sort((x, y) => x[1] - y[1])).toEqual(expected.map((x) => x.shard));
    }

    // Guild events too: CHANNEL_DELETE and GUILD_DELETE to one session of each set.
    const [first, second] = guilds;
    const channelId = first!.channels.find((c) => c.type === 0)!.id;
    emu.deleteChannel(channelId);
    emu.removeBotFromGuild(second!.id);
    await until(() => sessions.reduce((n, g) => n + dispatches(g, 'CHANNEL_DELETE').length + dispatches(g, 'GUILD_DELETE').length, 0) === 4, 3000, 'the guild events');
    for (const [i, g] of sessions.entries()) {
      const channelDeletes = dispatches(g, 'CHANNEL_DELETE').map((p) => (p.d as { id: string }).id);
      const guildDeletes = dispatches(g, 'GUILD_DELETE').map((p) => (p.d as { id: string }).id);
      expect(channelDeletes).toEqual(holders(first!.id).some((x) => x.g === g) ? [channelId] : []);
      expect(guildDeletes, `shard ${shards[i]!.join('/')}`).toEqual(holders(second!.id).some((x) => x.g === g) ? [second!.id] : []);
    }
    expect(emu.violations).toEqual([]);
  });
});
