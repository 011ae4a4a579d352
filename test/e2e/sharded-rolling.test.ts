/**
 * End to end, `npm run start:sharded` against the Discord emulator:
 * - a rolling restart (SIGUSR2 to the manager) replaces both shard processes of a two-shard host
 *   while /readyz on the manager's METRICS_PORT answers 200 throughout (polled every 100 ms),
 *   each shard ends up with a new process, the old ones exit, and the new ones answer;
 * - the session start limit of GET /gateway/bot: a manager whose shard processes would need more
 *   identifies than are left refuses to start, with one line; a roll that would is refused and
 *   leaves the shard processes as they are.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, APPLICATION_ID, botCommand, BotProcess, freePort, Stack, type LogLine } from '@feedbot/playground';
import { generateGuilds, makeBotToken, startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';
import { alive } from './process-kit.js';
import { shardOfGuild } from '../../src/shard-ids.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXIT_WITH_PARENT = resolve(ROOT, 'packages/playground/src/exit-with-parent.mjs');
const SHARD_COUNT = 2;
const GUILDS = generateGuilds(20, { namePrefix: 'Rolling' });


const startedPids = (lines: LogLine[], shard: number) => lines.filter((l) => l.msg === 'shard process started' && l.shard === shard).map((l) => Number(l.pid));

describe.skipIf(process.platform !== 'linux')('rolling restart of npm run start:sharded (SIGUSR2)', () => {
  let dir: string;
  let stack: Stack;
  let manager: BotProcess;
  let opsPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-rolling-'));
    stack = await Stack.start({ dataDir: dir, logger: silentLogger(), extraGuilds: GUILDS, botEnv: { SHARD_COUNT: String(SHARD_COUNT) } });
    await stack.deployCommands({ global: true });
    opsPort = await freePort();
    manager = stack.spawnBot({ entry: 'sharded', env: { METRICS_PORT: String(opsPort) } });
    await manager.waitForLog((l) => l.msg === 'every shard process is ready', 45_000);
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  async function readyz(): Promise<number | string> {
    try {
      const res = await request(`http://127.0.0.1:${opsPort}/readyz`, { headersTimeout: 3_000, bodyTimeout: 3_000 });
      const body = await res.body.text();
      return res.statusCode === 200 ? 200 : `${res.statusCode} ${body}`;
    } catch (error) {
      return `request failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  it('replaces every shard process while /readyz stays 200; the new processes answer', async () => {
    const before = [0, 1].map((shard) => startedPids(manager.lines, shard).at(-1)!);
    expect(before.every((pid) => pid > 0 && alive(pid))).toBe(true);
    // The shard processes log in before "ready" reaches /readyz's key store check: wait for a first 200.
    const deadline = Date.now() + 15_000;
    while ((await readyz()) !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await readyz()).toBe(200);

    const answers: (number | string)[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        answers.push(await readyz());
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const requested = manager.lines.length;
    process.kill(manager.child.pid!, 'SIGUSR2');
    try {
      await manager.waitForLog((l) => l.msg === 'rolling restart done: every shard process was replaced', 45_000);
    } finally {
      polling = false;
      await poller;
    }
    const rollLines = manager.lines.slice(requested);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((a) => a !== 200)).toEqual([]);

    const after = [0, 1].map((shard) => startedPids(manager.lines, shard).at(-1)!);
    for (const [shard, pid] of after.entries()) {
      expect(pid, `shard ${shard}`).not.toBe(before[shard]);
      expect(alive(pid)).toBe(true);
      expect(alive(before[shard]!)).toBe(false);
      // Its replacement took over only once ready; then the predecessor drained (SIGTERM) and exited.
      const took = rollLines.findIndex((l) => l.msg === 'shard process replaced: stopping its predecessor' && l.shard === shard);
      const ready = rollLines.findIndex((l) => l.msg === 'shard ready' && l.shard === shard);
      expect(ready).toBeGreaterThanOrEqual(0);
      expect(took).toBeGreaterThan(ready);
      expect(rollLines[took]).toMatchObject({ pid, predecessorPid: before[shard] });
      expect(rollLines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM' && l.pid === before[shard])).toBe(true);
      expect(rollLines.some((l) => l.msg === 'replaced shard process exited' && l.shard === shard && l.pid === before[shard])).toBe(true);
    }
    expect(rollLines.filter((l) => Number(l.level) >= 40)).toEqual([]);

    // A roll is no crash: no restart counted.
    const metrics = await request(`http://127.0.0.1:${opsPort}/metrics`).then((r) => r.body.text());
    expect(metrics).not.toMatch(/feedbot_shard_process_restarts_total\{shard="[01]",shard_process="manager"\} [1-9]/);
    expect(metrics).toMatch(/feedbot_shard_process_up\{shard="0",shard_process="manager"\} 1/);

    // Each shard's guilds are answered by its new process.
    for (const shard of [0, 1]) {
      const guild = GUILDS.find((g) => shardOfGuild(g.id, SHARD_COUNT) === shard)!;
      const answered = await stack.emulator
        .sendInteraction({ type: 'command', commandName: 'stats', guildId: guild.id, userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS })
        .waitForFinal({ timeoutMs: 15_000 });
      expect(answered.errors).toEqual([]);
      await manager.waitForLog((l) => l.msg === 'interaction' && String(l.interactionId) === answered.id, 5_000);
      const logged = manager.lines.filter((l) => l.msg === 'interaction' && String(l.interactionId) === answered.id);
      expect(logged.map((l) => l.pid)).toEqual([after[shard]]);
    }
  }, 60_000);
});

describe.skipIf(process.platform !== 'linux')("npm run start:sharded and Discord's session start limit", () => {
  let dir: string;
  let emulator: DiscordEmulator;
  const token = makeBotToken(APPLICATION_ID);
  const running = new Set<BotProcess>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-session-limit-'));
    // One session start a day: the first identify uses it.
    emulator = await startEmulator({ applicationId: APPLICATION_ID, botToken: token, guilds: GUILDS, sessionStartLimit: 1, logger: silentLogger() });
  }, 30_000);

  afterAll(async () => {
    await Promise.all([...running].map((p) => p.stop()));
    await emulator?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  function startManager(env: Record<string, string>): BotProcess {
    const child = spawn(process.execPath, ['--import', pathToFileURL(EXIT_WITH_PARENT).href, ...botCommand('source', 'sharded')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        DISCORD_TOKEN: token,
        DISCORD_API_URL: emulator.apiUrl,
        // Never reached: no interaction is sent.
        FEED_API_URL: 'https://127.0.0.1:9/v1',
        KEY_ENCRYPTION_SECRET: randomBytes(32).toString('base64'),
        DATABASE_URL: `sqlite://${join(dir, 'feedbot.sqlite')}`,
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const bot = new BotProcess(child, silentLogger());
    running.add(bot);
    void bot.exited.then(() => running.delete(bot));
    return bot;
  }

  it('refuses to start more shard processes than identifies are left, in one line', async () => {
    const manager = startManager({ SHARD_COUNT: '2' });
    const exit = await manager.exited;
    expect(exit.code).toBe(1);
    const stderr = manager.stderr.join('').trim();
    expect(stderr).toMatch(/^Refusing to start 2 shard processes: they need 2 identifies, but Discord's session start limit \(GET \/gateway\/bot\) has 1 left until it resets in 86400 s, at \d{4}-\d\d-\d\dT[\d:.]+Z\./);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(manager.lines.find((l) => l.level === 60)).toMatchObject({ msg: 'not enough session starts left to start the shard processes', needed: 2, remaining: 1, resetAfterMs: 86_400_000 });
    expect(manager.lines.some((l) => l.msg === 'shard process started')).toBe(false);
    expect(emulator.sessionStartLimit().remaining).toBe(1);
  }, 30_000);

  it('starts when the identifies are left, and then refuses a roll that would need more', async () => {
    const manager = startManager({ SHARD_COUNT: '1' });
    await manager.waitForLog((l) => l.msg === 'every shard process is ready', 45_000);
    expect(emulator.sessionStartLimit().remaining).toBe(0);
    const [pid] = startedPids(manager.lines, 0);
    process.kill(manager.child.pid!, 'SIGUSR2');
    const refused = await manager.waitForLog((l) => l.msg?.startsWith('rolling restart refused') === true, 10_000);
    expect(refused).toMatchObject({ level: 50, needed: 1 });
    expect(String(refused.reason)).toMatch(/^Refusing to roll \(restart\) 1 shard process: it needs 1 identify, but Discord's session start limit \(GET \/gateway\/bot\) has 0 left until it resets in \d+ s/);
    await new Promise((r) => setTimeout(r, 500));
    expect(startedPids(manager.lines, 0)).toEqual([pid]);
    expect(alive(pid!)).toBe(true);
    expect(manager.running).toBe(true);
  }, 60_000);
});
