/**
 * A shard session that drops and resumes, or is invalidated and identifies again, with a real
 * discord.js client; and the control routes that cause it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Events, type Client } from 'discord.js';
import type { WebSocket } from 'ws';
import { generateGuilds, type DiscordEmulator } from '../src/index.js';
import { TOKEN, loginClient, startTestEmulator } from './helpers.js';
import { guildIds, identify, isReady, lastSeq, nextGatewayEvent, rawGateway, resume, until, windowThrottler } from './raw-gateway.js';

const WINDOW_MS = 300;

let emu: DiscordEmulator | undefined;
let client: Client | undefined;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await client?.destroy();
  client = undefined;
  await emu?.close();
  emu = undefined;
});

/** An emulator with a short identify window, /ping registered, and a client that answers it. */
async function start(): Promise<{ emu: DiscordEmulator; client: Client; answered: string[] }> {
  emu = await startTestEmulator({ identifyWindowMs: WINDOW_MS });
  emu.setCommands([{ name: 'ping', description: 'Ping' }]);
  client = await loginClient(emu, { ws: { buildIdentifyThrottler: () => windowThrottler(16, WINDOW_MS) } });
  const answered: string[] = [];
  client.on(Events.InteractionCreate, async (i) => {
    if (!i.isChatInputCommand()) return;
    answered.push(i.id);
    await i.reply({ content: `pong from ${emu!.shards().find((s) => s.connected)?.sessionId}` });
  });
  return { emu, client, answered };
}

// Control answers are read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function control(e: DiscordEmulator, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${e.controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe('a shard connection that drops', () => {
  it('cut abruptly: discord.js RESUMEs the same session and gets the interaction dispatched while it was away', async () => {
    const { emu, answered } = await start();
    const sessionId = emu.shards()[0]!.sessionId;
    const closed = nextGatewayEvent(emu, 'close');
    const resumed = nextGatewayEvent(emu, 'resume');
    expect(emu.dropConnection()).toBe(1);
    expect(await closed).toMatchObject({ code: 1006, detail: 'dropped', sessionId });
    // Nobody is connected for the guild now: the dispatch waits in the session for the RESUME.
    expect(emu.shards()).toMatchObject([{ sessionId, connected: false }]);
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    expect(await resumed).toMatchObject({ sessionId });
    expect((await h.waitForFinal()).original?.content).toBe(`pong from ${sessionId}`);
    expect(answered).toEqual([h.id]);
    expect(emu.shards()).toMatchObject([{ sessionId, connected: true }]);
    expect(emu.sessionStartLimit().remaining).toBe(999);
    expect(emu.violations).toEqual([]);
  });

  it('closed with 4000 through the control API: resumed too; codes outside 4000–4999 are refused', async () => {
    const { emu } = await start();
    const sessionId = emu.shards()[0]!.sessionId;
    const closed = nextGatewayEvent(emu, 'close');
    const resumed = nextGatewayEvent(emu, 'resume');
    expect(await control(emu, '/gateway/drop', { shardId: 0, code: 4000 })).toEqual({ status: 200, json: { dropped: 1 } });
    expect(await closed).toMatchObject({ code: 4000, detail: 'dropped' });
    expect(await resumed).toMatchObject({ sessionId });
    await emu.waitForReady({ shardCount: 1 });
    expect((await control(emu, '/gateway/drop', { shardId: 5 })).json).toEqual({ dropped: 0 });
    expect((await control(emu, '/gateway/drop', { code: 1000 })).status).toBe(400);
    expect(emu.violations).toEqual([]);
  });

  it('while its guilds are still being sent: after the RESUME, GUILD_CREATE goes on from the first guild the client did not get', async () => {
    const guilds = generateGuilds(10_000);
    emu = await startTestEmulator({ guilds, maxGuildsPerShard: Number.POSITIVE_INFINITY });
    const first = await rawGateway(emu, { track: sockets });
    first.send(identify(TOKEN));
    await until(() => guildIds(first).length > 0);
    // A client that stops reading: the emulator waits for it, so the drop is mid-stream.
    first.ws.pause();
    await new Promise((r) => setTimeout(r, 50));
    const closed = nextGatewayEvent(emu, 'close');
    expect(emu.dropConnection()).toBe(1);
    await closed;
    const before = guildIds(first);
    const resumeFrom = resume(TOKEN, (first.received.find(isReady)!.d as { session_id: string }).session_id, lastSeq(first));
    expect(before.length).toBeLessThan(guilds.length);
    expect(emu.shards()[0]!.guildsSentAt).toBeNull();

    const second = await rawGateway(emu, { track: sockets });
    second.send(resumeFrom);
    await emu.waitForReady({ shardCount: 1 });
    await until(() => guildIds(second).length === guilds.length - before.length, 5000, 'the other guilds');
    const after = guildIds(second);
    expect(new Set([...before, ...after]).size).toBe(guilds.length);
    expect(before.length + after.length).toBe(guilds.length);
    expect(second.received.find((p) => p.op === 0)).toMatchObject({ t: 'RESUMED' });
  });
});

describe('an invalidated session', () => {
  it('op 9 (d: false): discord.js identifies again, a new session, counted against the limits', async () => {
    const { emu, answered } = await start();
    const before = emu.shards()[0]!.sessionId;
    const invalid = nextGatewayEvent(emu, 'invalid_session');
    const identified = nextGatewayEvent(emu, 'identify');
    expect(emu.invalidateSession(0)).toBe(1);
    expect(await invalid).toMatchObject({ detail: 'invalidated', sessionId: before });
    const after = (await identified).sessionId;
    expect(after).not.toBe(before);
    const [status] = await emu.waitForReady({ shardCount: 1 });
    expect(status).toMatchObject({ sessionId: after, connected: true });
    // The old session is gone: nothing can resume it.
    expect(emu.shards().map((s) => s.sessionId)).toEqual([after]);
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    expect((await h.waitForFinal()).original?.content).toBe(`pong from ${after}`);
    expect(answered).toEqual([h.id]);
    expect(emu.sessionStartLimit().remaining).toBe(998);
    // discord.js waited for its bucket's window before identifying again.
    expect(emu.violations).toEqual([]);
  });

  it('op 9 (d: true) through the control API: discord.js RESUMEs the same session', async () => {
    const { emu } = await start();
    const sessionId = emu.shards()[0]!.sessionId;
    const resumed = nextGatewayEvent(emu, 'resume');
    expect(await control(emu, '/gateway/invalidate', { resumable: true })).toEqual({ status: 200, json: { invalidated: 1 } });
    expect(await resumed).toMatchObject({ sessionId });
    expect(emu.shards()).toMatchObject([{ sessionId, connected: true }]);
    expect(emu.sessionStartLimit().remaining).toBe(999);
  });

  it('GET /_emulator/gateway shows the session start limit and the buckets used', async () => {
    const { emu } = await start();
    const res = await fetch(`${emu.controlUrl}/gateway`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ sessionStartLimit: { total: 1000, remaining: 999, max_concurrency: 16 }, identifyBuckets: [{ bucket: 0 }], shards: [{ shard: [0, 1] }] });
    expect(JSON.stringify(body)).not.toContain(TOKEN);
  });
});
