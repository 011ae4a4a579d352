/**
 * End to end, sharded: two "hosts" (`npm run start:sharded` with disjoint SHARD_IDS, one process
 * per shard) against a four-shard emulator with 1,000 guilds and one shared key store, first on
 * PostgreSQL, then on Redis (real servers on loopback). Every guild's interaction is answered
 * exactly once, by the process that owns its shard; a key set through one host is used by the
 * other after a restart; a shard process killed with SIGKILL leaves the others answering, and once
 * its manager started it again its guilds answer again with their key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import { SCOPES } from '@feedbot/feed-api-contract';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, freePort, missingServer, Stack, startPostgres, startRedis, type BotProcess, type LocalServer, type LogLine } from '@feedbot/playground';
import { generateGuilds, type InteractionSnapshot } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';
import { shardOfGuild } from '../../src/shard-ids.js';

const SHARD_COUNT = 4;
const GUILDS = generateGuilds(1_000, { namePrefix: 'Sharded' });
const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };
const shardOf = (guildId: string) => shardOfGuild(guildId, SHARD_COUNT);
const guildsOfShard = (shard: number) => GUILDS.filter((g) => shardOf(g.id) === shard).map((g) => g.id);
/** One guild with a key on a shard of each host of the first start. */
const KEYED = [guildsOfShard(0)[0]!, guildsOfShard(3)[0]!];

function text(s: InteractionSnapshot): string {
  const messages: APIMessage[] = [...(s.original && !s.originalDeleted ? [s.original] : []), ...s.followUps];
  expect(messages, `interaction ${s.id} in guild ${s.guildId} got no answer: ${JSON.stringify(s.errors)}`).toHaveLength(1);
  return JSON.stringify({ content: messages[0]!.content, embeds: messages[0]!.embeds });
}

/** The interaction log lines of every process of the given hosts, by interaction id. */
function interactionLines(hosts: BotProcess[]): Map<string, LogLine[]> {
  const byId = new Map<string, LogLine[]>();
  for (const line of hosts.flatMap((h) => h.lines)) {
    if (line.msg !== 'interaction') continue;
    const id = String(line.interactionId);
    byId.set(id, [...(byId.get(id) ?? []), line]);
  }
  return byId;
}

/**
 * The interaction log lines of `ids`, once each has one: a process writes its line after the
 * answer reached the emulator, so the last lines may still be in the pipe.
 */
async function linesOf(hosts: BotProcess[], ids: string[]): Promise<Map<string, LogLine[]>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = interactionLines(hosts);
    if (ids.every((id) => lines.has(id)) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const kind of ['postgres', 'redis'] as const) {
  const skip = missingServer(kind);
  if (skip) console.warn(skip);

  describe.skipIf(skip !== undefined)(`two hosts × two shards, shared ${kind} key store`, () => {
    let server: LocalServer;
    let dir: string;
    let stack: Stack;
    let hostA: BotProcess;
    let hostB: BotProcess;
    const opsPort = { A: 0, B: 0 };

    async function startHost(name: 'A' | 'B', ids: string): Promise<BotProcess> {
      const host = stack.spawnBot({ entry: 'sharded', env: { SHARD_IDS: ids, METRICS_PORT: String(opsPort[name]) } });
      await host.waitForLog((l) => l.msg === 'every shard process is ready', 120_000);
      return host;
    }

    async function send(guildId: string): Promise<InteractionSnapshot> {
      return stack.emulator.sendInteraction({ type: 'command', commandName: 'stats', guildId, ...admin }).waitForFinal({ timeoutMs: 15_000 });
    }

    /** /stats in every given guild, 25 at a time. */
    async function sendAll(guildIds: string[]): Promise<InteractionSnapshot[]> {
      const out: InteractionSnapshot[] = [];
      for (let i = 0; i < guildIds.length; i += 25) out.push(...(await Promise.all(guildIds.slice(i, i + 25).map(send))));
      return out;
    }

    async function ops(name: 'A' | 'B', path: string): Promise<{ status: number; body: string }> {
      const res = await request(`http://127.0.0.1:${opsPort[name]}${path}`);
      return { status: res.statusCode, body: await res.body.text() };
    }

    beforeAll(async () => {
      server = kind === 'postgres' ? await startPostgres() : await startRedis();
      dir = mkdtempSync(join(tmpdir(), `feedbot-sharded-${kind}-`));
      opsPort.A = await freePort();
      opsPort.B = await freePort();
      stack = await Stack.start({
        dataDir: dir,
        logger: silentLogger(),
        extraGuilds: GUILDS,
        botEnv: { DATABASE_URL: await server.newDatabase(), SHARD_COUNT: String(SHARD_COUNT) },
      });
      await stack.deployCommands({ global: true });
      [hostA, hostB] = await Promise.all([startHost('A', '0-1'), startHost('B', '2-3')]);
    }, 240_000);

    afterAll(async () => {
      await stack?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('keys are set through the host that owns each guild', async () => {
      for (const guildId of KEYED) {
        await stack.sandbox.admin.createServer(guildId, 'server');
        const key = await stack.sandbox.admin.generateKey(guildId, [...SCOPES]);
        const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', guildId, ...admin }).waitForAck();
        expect(opened.ack?.type).toBe(9);
        const saved = await stack.emulator.submitModal({ interactionId: opened.id, values: { key }, ...admin }).waitForFinal({ timeoutMs: 15_000 });
        expect(text(saved)).toMatch(/API key saved/);
      }
    }, 60_000);

    it('every guild is answered exactly once, by the process that owns its shard', async () => {
      const snapshots = await sendAll(GUILDS.map((g) => g.id));
      const lines = await linesOf([hostA, hostB], snapshots.map((s) => s.id));
      for (const s of snapshots) {
        expect(s.errors, `guild ${s.guildId}`).toEqual([]);
        expect(s.shardId).toBe(shardOf(s.guildId!));
        const answer = text(s);
        if (KEYED.includes(s.guildId!)) expect(answer).not.toMatch(/no feed API key yet/);
        else expect(answer).toMatch(/no feed API key yet/);
        const logged = lines.get(s.id) ?? [];
        expect(logged, `log lines of interaction ${s.id}`).toHaveLength(1);
        const outcome = KEYED.includes(s.guildId!) ? 'ok' : 'user_error';
        expect(logged[0]).toMatchObject({ guild: s.guildId, shards: String(shardOf(s.guildId!)), outcome });
      }
      // Each host answered its own shards only.
      const hostOf = (line: LogLine) => (hostA.lines.includes(line) ? 'A' : 'B');
      const hosts = [...lines.values()].flat().map((l) => `${hostOf(l)}:${String(l.shards)}`);
      expect(new Set(hosts)).toEqual(new Set(['A:0', 'A:1', 'B:2', 'B:3']));
    }, 120_000);

    it('each host reports its own shards in /readyz and /metrics', async () => {
      const ready = await ops('A', '/readyz');
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toMatchObject({ ready: true, shards: { '0': 'Ready', '1': 'Ready' }, keyStore: 'ok', problems: [] });
      const metrics = (await ops('B', '/metrics')).body;
      expect(metrics).toMatch(/feedbot_gateway_shard_status\{shard="2",shard_process="2"\} 0/);
      expect(metrics).toMatch(/feedbot_gateway_shard_status\{shard="3",shard_process="3"\} 0/);
      expect(metrics).not.toMatch(/shard="[01]"/);
      const answered = [...metrics.matchAll(/feedbot_interactions_total\{[^}]*command="stats"[^}]*shard_process="([23])"\} (\d+)/g)];
      const total = answered.reduce((sum, m) => sum + Number(m[2]), 0);
      expect(total).toBe(guildsOfShard(2).length + guildsOfShard(3).length);
    }, 30_000);

    it('after a restart with the ranges swapped, each host uses the keys the other one set', async () => {
      await Promise.all([hostA.stop(), hostB.stop()]);
      [hostA, hostB] = await Promise.all([startHost('A', '2-3'), startHost('B', '0-1')]);
      const answered = await sendAll(KEYED);
      const lines = await linesOf([hostA, hostB], answered.map((s) => s.id));
      for (const s of answered) {
        expect(text(s)).not.toMatch(/no feed API key yet|API key/i);
        const line = lines.get(s.id)?.[0];
        expect(line).toMatchObject({ shards: String(shardOf(s.guildId!)), outcome: 'ok' });
        // Shard 0 is host B's now, shard 3 host A's: the other host than the one that stored the key.
        expect((shardOf(s.guildId!) === 0 ? hostB : hostA).lines.includes(line!)).toBe(true);
      }
    }, 180_000);

    it('a shard process killed with SIGKILL: the others keep answering, and it answers again once started again', async () => {
      const started = hostB.lines.filter((l) => l.msg === 'shard process started' && l.shard === 0);
      const pid = Number(started.at(-1)?.pid);
      expect(pid).toBeGreaterThan(0);
      // Counted before the kill: on a loaded machine the replacement may be ready before the others' answers are in.
      const readyBefore = hostB.lines.filter((l) => l.msg === 'shard ready' && l.shard === 0).length;
      process.kill(pid, 'SIGKILL');
      await hostB.waitForLog((l) => l.msg === 'shard process exited' && l.shard === 0 && l.signal === 'SIGKILL', 10_000);
      // Its replacement needs seconds to log in: meanwhile the host says which shard is missing.
      const degraded = await ops('B', '/readyz');
      expect(degraded.status).toBe(503);
      expect(JSON.parse(degraded.body)).toMatchObject({ ready: false, shards: { '1': 'Ready' } });
      expect(JSON.parse(degraded.body).problems.join('\n')).toMatch(/^shard 0: /m);

      const others = [1, 2, 3].flatMap((shard) => guildsOfShard(shard).slice(0, 40));
      for (const s of await sendAll([...others, KEYED[1]!])) {
        expect(s.errors).toEqual([]);
        text(s);
      }

      await hostB.waitForLog(() => hostB.lines.filter((l) => l.msg === 'shard ready' && l.shard === 0).length > readyBefore, 60_000);
      // KEYED[0] is the first guild of shard 0: the others have no key.
      const back = await sendAll([...guildsOfShard(0).slice(1, 61), KEYED[0]!]);
      for (const s of back) expect(s.errors).toEqual([]);
      expect(text(back.at(-1)!)).not.toMatch(/no feed API key yet/);
      expect(back.slice(0, -1).every((s) => /no feed API key yet/.test(text(s)))).toBe(true);

      const recovered = await ops('B', '/readyz');
      expect(recovered.status).toBe(200);
      expect((await ops('B', '/metrics')).body).toMatch(/feedbot_shard_process_restarts_total\{shard="0",shard_process="manager"\} 1/);
    }, 120_000);
  });
}
