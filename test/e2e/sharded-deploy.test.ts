/**
 * End to end: the two deploys of `npm run start:sharded` that docs/OPERATIONS.md describes, under
 * a steady 20 interactions per second spread over the guilds of every shard:
 *
 * 1. a rolling restart (SIGUSR2 to the manager): each shard's replacement identifies beside it,
 *    and the old process drains once the new one is ready;
 * 2. a resharding, 2 → 3 shards (any new count works alike; 4 → 6 held ten processes for a minute
 *    on a 2-core CI machine): a second manager with SHARD_COUNT=3 starts beside the first
 *    (each guild is then held by a session of each count), and once its /readyz says ready the
 *    first manager gets SIGTERM.
 *
 * Throughout: every interaction answered exactly once (one callback, counted at the emulator),
 * none expired; a feed created while two processes hold its guild exists once (sandbox); at every
 * 100 ms sample some manager says ready; no error-level log line anywhere. On SQLite (one host),
 * and on PostgreSQL and Redis (skipped with a message when absent, never under CI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, MEMBER_USER_ID, freePort, missingServer, startPostgres, startRedis, Stack, type BotProcess, type LocalServer, type LogLine } from '@feedbot/playground';
import { generateGuilds, type InteractionSnapshot } from '@feedbot/discord-emulator';
import { SCOPES } from '@feedbot/feed-api-contract';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { deployStores, readyz } from './process-kit.js';

const LOAD_INTERVAL_MS = 50;
const GUILDS = generateGuilds(24, { namePrefix: 'Reshard' });
const KEYED = GUILDS[0]!;
const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };

async function until(done: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const errorLines = (processes: BotProcess[]) =>
  processes.flatMap((p) => p.lines).filter((l: LogLine) => typeof l.level === 'number' && l.level >= 50).map((l) => `${String(l.msg)} ${JSON.stringify(l.err ?? '')}`);

for (const store of deployStores()) {
  const skip = store === 'sqlite' ? undefined : missingServer(store);
  if (skip) console.warn(skip);

  describe.skipIf(skip !== undefined)(`sharded deploys under load: a rolling restart, then 2 → 3 shards [${store}]`, () => {
    let server: LocalServer | undefined;
    let dir: string;
    let stack: Stack;

    beforeAll(async () => {
      server = store === 'postgres' ? await startPostgres() : store === 'redis' ? await startRedis() : undefined;
      dir = mkdtempSync(join(tmpdir(), `feedbot-sharded-deploy-${store}-`));
      stack = await Stack.start({
        dataDir: dir,
        logger: silentLogger(),
        extraGuilds: GUILDS,
        rateLimit: { limit: 100_000 },
        botEnv: { SHARD_COUNT: '2', ...(server ? { DATABASE_URL: await server.newDatabase() } : {}) },
      });
      await stack.deployCommands({ global: true });
    }, 120_000);

    afterAll(async () => {
      await stack?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('every interaction answered once, one feed per create, a ready manager at every moment', { timeout: 240_000 }, async () => {
      const ports = { two: await freePort(), three: await freePort() };
      const two = stack.spawnBot({ entry: 'sharded', env: { METRICS_PORT: String(ports.two) } });
      await two.waitForLog((l) => l.msg === 'every shard process is ready', 90_000);
      await until(async () => (await readyz(ports.two)) === 200, 30_000, 'the 2-shard manager ready');

      // A key in one guild, so that a create reaches the feed API.
      await stack.sandbox.admin.createServer(KEYED.id, 'server');
      const key = await stack.sandbox.admin.generateKey(KEYED.id, [...SCOPES]);
      const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', guildId: KEYED.id, ...admin }).waitForAck();
      await stack.emulator.submitModal({ interactionId: opened.id, values: { key }, ...admin }).waitForFinal({ timeoutMs: 15_000 });

      const gaps: number[] = [];
      let watching = true;
      let three: BotProcess | undefined;
      const watch = (async () => {
        while (watching) {
          const states = await Promise.all([readyz(ports.two), three ? readyz(ports.three) : Promise.resolve(0)]);
          if (!states.includes(200)) gaps.push(Date.now());
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const sent: Promise<InteractionSnapshot>[] = [];
      let n = 0;
      const timer = setInterval(() => {
        const guild = GUILDS[n++ % GUILDS.length]!;
        sent.push(stack.emulator.sendInteraction({ type: 'command', commandName: 'stats', guildId: guild.id, userId: MEMBER_USER_ID }).waitForFinal({ timeoutMs: 20_000 }));
      }, LOAD_INTERVAL_MS);

      try {
        // 1. The rolling restart.
        const pidsBefore = two.lines.filter((l) => l.msg === 'shard process started').map((l) => Number(l.pid));
        two.child.kill('SIGUSR2');
        await two.waitForLog((l) => String(l.msg).startsWith('rolling restart done'), 120_000);
        const replaced = two.lines.filter((l) => l.msg === 'shard process started').map((l) => Number(l.pid)).filter((pid) => !pidsBefore.includes(pid));
        expect(replaced).toHaveLength(2);

        // 2. The resharding: three shards beside the two, then the two drain.
        three = stack.spawnBot({ entry: 'sharded', env: { SHARD_COUNT: '3', METRICS_PORT: String(ports.three) } });
        await three.waitForLog((l) => l.msg === 'every shard process is ready', 120_000);
        await until(async () => (await readyz(ports.three)) === 200, 30_000, 'the 3-shard manager ready');
        // Both counts hold the keyed guild now: the create reaches a process of each.
        const created = await stack.emulator
          .sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'create', options: { cuenta: '@nasa', canal: KEYED.channels[1]!.id, tipos: 'post' }, guildId: KEYED.id, ...admin })
          .waitForFinal({ timeoutMs: 15_000 });
        expect(created.callbacks).toBe(1);
        expect(await stack.sandbox.admin.listFeeds(KEYED.id)).toHaveLength(1);
        const stopped = await two.stop(40_000);
        expect(stopped.code).toBe(0);
        await new Promise((r) => setTimeout(r, 2_000));
      } finally {
        clearInterval(timer);
      }
      const snapshots = await Promise.all(sent);
      watching = false;
      await watch;

      expect(snapshots.length).toBeGreaterThan(100);
      for (const s of snapshots) {
        expect(s.state, `interaction ${s.id} in guild ${s.guildId}`).toBe('acknowledged');
        expect(s.callbacks, `callbacks of interaction ${s.id}`).toBe(1);
        expect(s.errors, `interaction ${s.id}`).toEqual([]);
      }
      // Each of them reached two processes at some point: during the roll (same shard) or the resharding (two counts).
      expect(snapshots.filter((s) => s.dispatchedTo.length > 1).length).toBeGreaterThan(0);
      expect(stack.emulator.interactions().filter((i) => i.callbacks > 1).map((i) => i.id)).toEqual([]);
      expect(gaps, 'moments when no manager was ready').toEqual([]);
      expect(errorLines([two, three!])).toEqual([]);
    });
  });
}
