/**
 * End to end: the real bot process (`npm start`, real SQLite, real HTTPS with the sandbox CA
 * through FEED_API_CA_FILE) against the Discord emulator and the sandbox, walking whole
 * stories the way users live them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import { SCOPES } from '@feedbot/feed-api-contract';
import {
  ADMIN_PERMISSIONS,
  ADMIN_USER_ID,
  DEMO_CHANNELS,
  MEMBER_PERMISSIONS,
  MEMBER_USER_ID,
  Stack,
  missingNginx,
  missingServer,
  startPostgres,
  startRedis,
  type LocalServer,
} from '@feedbot/playground';
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import { generateGuilds, type InteractionHandle, type InteractionInput, type InteractionSnapshot } from '@feedbot/discord-emulator';
import { createClient } from '@redis/client';
import { silentLogger } from '../../src/logger.js';
import { answered, messageWhen, titled } from './story-kit.js';

const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };
const member = { userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS };
// Enough that a SIGKILL after the first three saves still lands while others are in flight, even on a busy machine.
const EXTRA_GUILDS = generateGuilds(24, { namePrefix: 'Crash test' });

let dir: string;
let stack: Stack;
const killedInteractions = new Set<string>();

async function flushRedis(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  await client.flushDb();
  await client.close();
}


/**
 * Sends and waits, bounded, for the answer the story reads: choices or a modal, or a message that
 * is not the "thinking…" placeholder (settled is not answered: a failure after a public
 * placeholder deletes it, then follows up).
 */
async function send(input: InteractionInput, timeoutMs = 15_000, settleMs?: number): Promise<InteractionSnapshot> {
  return answer(stack.emulator.sendInteraction(input), timeoutMs, settleMs);
}

async function answer(handle: InteractionHandle, timeoutMs = 15_000, settleMs?: number): Promise<InteractionSnapshot> {
  const settled = await handle.waitForFinal({ timeoutMs, ...(settleMs === undefined ? {} : { settleMs }) });
  if (settled.ack?.type === 8 || settled.ack?.type === 9) return settled;
  await messageWhen(stack.emulator, handle.id, answered, { timeoutMs, what: 'the answer' });
  return handle.snapshot();
}

function lastMessage(s: InteractionSnapshot): APIMessage {
  const m = [...(s.original && !s.originalDeleted ? [s.original] : []), ...s.followUps].at(-1);
  if (!m) throw new Error(`no message for interaction ${s.id}: ${JSON.stringify(s.errors)}`);
  return m;
}

const text = (m: APIMessage) => JSON.stringify({ content: m.content, embeds: m.embeds });

async function setKey(guildId: string, key: string): Promise<InteractionSnapshot> {
  const opened = await stack.emulator
    .sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', guildId, ...admin })
    .waitForAck();
  expect(opened.ack?.type).toBe(9);
  return answer(stack.emulator.submitModal({ interactionId: opened.id, values: { key }, ...admin }));
}

// The same stories with interactions over the gateway and over HTTP (INTERACTIONS_MODE=http,
// signed POSTs from the emulator to the bot's POST /interactions).
// 'replicas': three identical HTTP replicas behind a real nginx, sharing one PostgreSQL key store
// and one Redis (budget, autocomplete cache, replay guard).
const VARIANTS = ['gateway', 'http', 'replicas'] as const;
const replicasMissing = missingNginx() ?? missingServer('postgres') ?? missingServer('redis');
if (replicasMissing) console.warn(replicasMissing);

describe.each(VARIANTS.filter((v) => v !== 'replicas' || !replicasMissing))('a server from first run to daily use [%s]', (variant) => {
  const transport = variant === 'gateway' ? 'gateway' : 'http';
  const servers: LocalServer[] = [];
  let sharedRedisUrl: string | undefined;
  beforeAll(async () => {
    killedInteractions.clear();
    dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-'));
    const shared: Record<string, string> = {};
    if (variant === 'replicas') {
      servers.push(await startPostgres(), await startRedis());
      shared.DATABASE_URL = await servers[0]!.newDatabase();
      shared.REDIS_URL = sharedRedisUrl = await servers[1]!.newDatabase();
    }
    stack = await Stack.start({ dataDir: dir, logger: silentLogger(), extraGuilds: EXTRA_GUILDS, transport, replicas: variant === 'replicas' ? 3 : 1, botEnv: shared });
  }, 90_000);

  afterAll(async () => {
    await stack?.close();
    for (const server of servers.splice(0)) await server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('deploys the commands with one bulk overwrite to the dev guild', async () => {
    const out = await stack.deployCommands();
    expect(out).toMatch(/Registered 5 commands \(guild 1100000000000000001\)/);
    expect(stack.emulator.commands(DEMO_GUILD_ID).map((c) => c.name).sort()).toEqual(['Feed of this post', 'apikey', 'feed', 'feedbot', 'stats']);
    const puts = stack.emulator.calls.filter((c) => c.method === 'PUT' && c.route.includes('/commands'));
    expect(puts).toHaveLength(1);
  }, 60_000);

  it(`the bot becomes ready (${transport})`, async () => {
    const bot = await stack.startBot();
    if (transport === 'gateway') expect(bot.lines.find((l) => l.msg === 'ready')).toMatchObject({ guilds: 1 + EXTRA_GUILDS.length });
    else {
      expect(bot.lines.filter((l) => l.msg === 'ready' && l.mode === 'http')).toHaveLength(variant === 'replicas' ? 3 : 1);
      // The emulator checked the endpoint as the Developer Portal does before saving it.
      expect(stack.emulator.deliveries.map((d) => `${d.kind} ${d.status}`)).toEqual(['ping_bad_signature 401', 'ping 200']);
      expect(bot.lines.some((l) => l.msg === 'interactions endpoint listening')).toBe(true);
    }
  }, 60_000);

  it('before a key is set, commands tell an admin to set one', async () => {
    const s = await send({ type: 'command', commandName: 'stats', ...member });
    expect(lastMessage(s).flags).toBe(64);
    expect(text(lastMessage(s))).toMatch(/no feed API key yet/);
  });

  it('a member without Manage Server cannot set the key', async () => {
    const s = await send({ type: 'command', commandName: 'apikey', subcommand: 'set', ignoreDefaultMemberPermissions: true, ...member });
    expect(s.ack?.type).toBe(4);
    expect(text(lastMessage(s))).toMatch(/Manage Server/);
  });

  it('an admin sets the key through the modal: checked, stored encrypted, shown masked', async () => {
    const s = await setKey(DEMO_GUILD_ID, stack.demoKey);
    const m = lastMessage(s);
    expect(m.flags).toBe(64);
    expect(m.embeds[0]!.title).toBe('API key saved');
    expect(text(m)).toContain(`••••${stack.demoKey.slice(-4)}`);
    expect(text(m)).not.toContain(stack.demoKey);
    for (const scope of SCOPES) expect(text(m)).toContain(`✅ \`${scope}\``);
  });

  let createdId: number;
  let newKey: string;

  it('an admin creates a feed, sees it in the list, reads its posts and the stats', async () => {
    const channel = DEMO_CHANNELS[1].id;
    const created = await send({
      type: 'command',
      commandName: 'feed',
      subcommand: 'create',
      options: { cuenta: '@esa.space', canal: channel, tipos: 'post+reel' },
      ...admin,
    });
    const c = lastMessage(created);
    expect(c.embeds[0]!.title).toBe('Feed created');
    createdId = Number(/#(\d+)/.exec(c.embeds[0]!.fields![0]!.value)![1]);

    const list = lastMessage(await send({ type: 'command', commandName: 'feed', subcommand: 'list', options: { canal: channel }, ...member }));
    expect(list.flags ?? 0).toBe(0);
    expect(list.embeds[0]!.fields!.map((f) => f.name)).toContain(`#${createdId} · @esa.space`);

    // A fresh feed has no posts until the simulator forwards some: make it forward one now.
    await stack.sandbox.admin.simulateTick();
    const posts = lastMessage(await send({ type: 'command', commandName: 'feed', subcommand: 'posts', options: { id: 1, limite: 3 }, ...member }));
    expect(posts.content).toMatch(/^Latest posts of feed #1 \(1–3 of 3\)$/);
    expect(posts.embeds).toHaveLength(3);
    for (const e of posts.embeds) expect(e.image?.url).toMatch(new RegExp(`^${stack.sandbox.url}/media/`));

    const stats = lastMessage(await send({ type: 'command', commandName: 'stats', ...member, locale: 'es-ES' }));
    expect(stats.embeds[0]!.title).toBe('Estadísticas de reenvío');
    expect(stats.embeds[0]!.fields!.find((f) => f.name === 'Feeds activos')!.value).toBe('4');
  });

  it('the feed id autocompletes from the guild feeds', async () => {
    const s = await send({ type: 'autocomplete', commandName: 'feed', subcommand: 'delete', focused: 'id', options: { id: 'esa' }, ...admin });
    expect(s.ack?.type).toBe(8);
    expect(s.choices).toEqual([expect.objectContaining({ value: createdId, name: expect.stringContaining('@esa.space → #media') })]);
  });

  it('a member without Manage Server is refused create and delete', async () => {
    const create = await send({ type: 'command', commandName: 'feed', subcommand: 'create', options: { cuenta: 'x', canal: DEMO_CHANNELS[0].id, tipos: 'post' }, ...member });
    expect(text(lastMessage(create))).toMatch(/need the \*\*Manage Server\*\* permission to create feeds/);
    const del = await send({ type: 'command', commandName: 'feed', subcommand: 'delete', options: { id: createdId }, ...member });
    expect(text(lastMessage(del))).toMatch(/to delete feeds/);
  });

  it('an admin deletes the feed through the confirmation button', async () => {
    const asked = await send({ type: 'command', commandName: 'feed', subcommand: 'delete', options: { id: createdId }, ...admin });
    const confirmation = lastMessage(asked);
    expect(confirmation.flags).toBe(64);
    const row = confirmation.components![0] as { components: { custom_id: string; label: string }[] };
    const yes = row.components.find((b) => b.label === 'Delete')!;
    const pressed = stack.emulator.pressButton({ messageId: confirmation.id, customId: yes.custom_id, ...admin });
    const done = await messageWhen(stack.emulator, pressed.id, titled('Feed deleted'), { what: 'the deleted feed' });
    expect(done.embeds[0]!.title).toBe('Feed deleted');
    expect(pressed.snapshot().ack?.type).toBe(7);
    const list = lastMessage(await send({ type: 'command', commandName: 'feed', subcommand: 'list', ...member }));
    expect(list.embeds[0]!.fields!.map((f) => f.name)).not.toContain(`#${createdId} · @esa.space`);
  });

  it('after the key is regenerated in the dashboard, the next command explains the 401', async () => {
    newKey = await stack.sandbox.admin.generateKey(DEMO_GUILD_ID, [...SCOPES]);
    const s = await send({ type: 'command', commandName: 'stats', ...member });
    expect(text(lastMessage(s))).toMatch(/invalid or was regenerated/);
    expect(lastMessage(s).flags).toBe(64);
    const saved = await setKey(DEMO_GUILD_ID, newKey);
    expect(lastMessage(saved).embeds[0]!.title).toBe('API key saved');
  });

  it('101 requests in a minute: the 101st gets the 429 explanation with the window reset time', async () => {
    stack.sandbox.resetRateLimits();
    // One after the other: identical reads in flight would be shared and spend less budget.
    let answered = 0;
    for (let i = 0; i < 100; i++) {
      const s = await send({ type: 'command', commandName: 'stats', ...member }, 15_000, 5);
      if (lastMessage(s).embeds[0]?.title === 'Forwarding statistics') answered++;
    }
    expect(answered).toBe(100);
    const over = lastMessage(await send({ type: 'command', commandName: 'stats', ...member }));
    expect(over.flags).toBe(64);
    const match = /resets <t:(\d+):R> \(at <t:(\d+):T>\)/.exec(text(over));
    expect(match).not.toBeNull();
    expect(match![1]).toBe(match![2]);
    // The sandbox's own 429 for this key names the same reset.
    const agent = new Agent({ connect: { ca: stack.sandbox.caPem } });
    const res = await request(`${stack.sandbox.url}/stats`, { headers: { authorization: `Bearer ${newKey}` }, dispatcher: agent });
    await res.body.dump();
    expect(res.statusCode).toBe(429);
    expect(res.headers['x-ratelimit-reset']).toBe(match![1]);
    await agent.close();
    stack.sandbox.resetRateLimits();
    // The sandbox's window was just reset out of band. Replicas share the gate in Redis, which
    // (rightly) remembers the spent window until its reset, across restarts: forget it too.
    if (sharedRedisUrl) await flushRedis(sharedRedisUrl);
  }, 90_000);

  it('after a restart the stored key still works', async () => {
    await stack.bot!.stop();
    expect(stack.bot!.lines.some((l) => l.msg === 'stopped')).toBe(true);
    await stack.startBot();
    const s = await send({ type: 'command', commandName: 'stats', ...member });
    expect(lastMessage(s).embeds[0]!.title).toBe('Forwarding statistics');
  }, 60_000);

  it('SIGKILL in the middle of key writes: the store opens with every acknowledged write', async () => {
    expect(await stack.deployCommands({ global: true })).toMatch(/Registered 5 commands \(global\)/);
    const keys = new Map<string, string>();
    for (const g of EXTRA_GUILDS) {
      await stack.sandbox.admin.createServer(g.id, 'server');
      keys.set(g.id, await stack.sandbox.admin.generateKey(g.id, [...SCOPES]));
    }
    const saved: string[] = [];
    const pending = EXTRA_GUILDS.map(async (g, i) => {
      await new Promise((r) => setTimeout(r, i * 40));
      const s = await setKey(g.id, keys.get(g.id)!).catch(() => undefined);
      if (s && s.original?.embeds[0]?.title === 'API key saved') saved.push(g.id);
    });
    // Kill as soon as the first writes are acknowledged, while others are still in flight.
    const deadline = Date.now() + 15_000;
    while (saved.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    stack.bot!.kill('SIGKILL');
    await stack.bot!.exited;
    await Promise.allSettled(pending);
    // Whatever was in flight or sent while the bot was down goes unanswered, as on Discord.
    for (const i of stack.emulator.interactions()) if (i.state !== 'acknowledged') killedInteractions.add(i.id);
    const acknowledged = [...saved];
    expect(acknowledged.length).toBeGreaterThanOrEqual(3);
    // Killed mid-stream: some writes had not been acknowledged.
    expect(acknowledged.length).toBeLessThan(EXTRA_GUILDS.length);

    await stack.startBot();
    for (const guildId of acknowledged) {
      const status = lastMessage(await send({ type: 'command', commandName: 'apikey', subcommand: 'status', guildId, ...admin }));
      expect(text(status)).toContain(`••••${keys.get(guildId)!.slice(-4)}`);
    }
    // The store is healthy for the rest too: every guild can still read or set its key.
    const last = EXTRA_GUILDS.at(-1)!.id;
    const again = await setKey(last, keys.get(last)!);
    expect(lastMessage(again).embeds[0]!.title).toBe('API key saved');
  }, 90_000);

  it('SIGTERM finishes cleanly and the emulator saw no reply Discord would reject', async () => {
    const result = await stack.bot!.stop();
    expect(stack.bot!.lines.some((l) => l.msg === 'stopped')).toBe(true);
    expect(result.signal === 'SIGTERM' || result.code === 0 || result.code === 143).toBe(true);
    // Interactions cut off by the SIGKILL above are the only ones allowed to go unanswered. A restart
    // within 5 s of the previous IDENTIFY is refused once (op 9), as on Discord; discord.js identifies again.
    const cutOff = new Set(['ack_timeout', 'interactions_endpoint']);
    const rejected = stack.emulator.violations.filter(
      (v) => v.kind !== 'identify_rate_limited' && (!cutOff.has(v.kind) || !killedInteractions.has(v.interactionId ?? '')),
    );
    expect(rejected.map((v) => `${v.kind} ${v.method ?? ''} ${v.route ?? ''} ${v.message}`)).toEqual([]);
  }, 30_000);
});
