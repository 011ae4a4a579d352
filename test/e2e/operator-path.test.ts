/**
 * The operator's path, as shipped: `.env.example` copied to a fresh folder's `.env`, only the
 * variables the README's Quick start says are required filled in (plus the two lines that point
 * at the local stand-ins: the Discord emulator's DISCORD_API_URL and the sandbox's
 * FEED_API_CA_FILE), by editing the file's own lines as a user does. Then what the Quick start
 * runs: the compiled deploy-commands and the compiled bot (`npm start` is `node
 * --enable-source-maps dist/src/index.js`) from that folder with no other environment than PATH
 * and HOME. The bot must reach the emulator and answer commands. Every other value comes from
 * the shipped file, empty lines included (left as '', SHARD_COUNT= would be 0 shards to
 * discord.js, which refuses to start).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, BotProcess, MEMBER_PERMISSIONS, MEMBER_USER_ID, Stack } from '@feedbot/playground';
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { InteractionSnapshot } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';
import { REPO_ROOT, operatorFolder } from '../ops/compose-files.js';
import { buildOnce } from '../helpers/build.js';

const run = promisify(execFile);

/** Only what a shell started from a login would pass: no variable of the bot's. */
const bareEnv = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home });
const compiled = (entry: string) => ['--enable-source-maps', join(REPO_ROOT, 'dist', 'src', `${entry}.js`)];
/** The variables README.md's table marks `yes` (required), and its Quick start's text. */
async function readme(): Promise<{ required: string[]; quickStart: string }> {
  const text = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const required = [...text.matchAll(/^\| `([A-Z_]+)` \| yes \|/gm)].map((m) => m[1]!);
  const quickStart = /\*\*Quick start\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  return { required, quickStart };
}

const shown = (s: InteractionSnapshot) => JSON.stringify([s.original, ...s.followUps].map((m) => m && { content: m.content, embeds: m.embeds }));

describe('the operator path: .env.example filled in, the compiled bot started from its folder', () => {
  let stack: Stack;
  let stackDir: string;
  let folder: { dir: string; cleanup: () => Promise<void> };
  let bot: BotProcess | undefined;

  beforeAll(async () => {
    // What the Quick start runs first; a no-op (under a second) when dist/ is up to date.
    await buildOnce();
    stackDir = await mkdtemp(join(tmpdir(), 'feedbot-operator-stack-'));
    // The sandbox and the emulator only; the bot is started below, by hand.
    stack = await Stack.start({ dataDir: stackDir, logger: silentLogger(), launch: 'compiled' });
    const values: Record<string, string> = {
      DISCORD_TOKEN: stack.botToken,
      FEED_API_URL: stack.sandbox.url,
      KEY_ENCRYPTION_SECRET: randomBytes(32).toString('base64'),
    };
    const { required } = await readme();
    expect(required.sort(), "the README's required variables are the ones filled in here").toEqual(Object.keys(values).sort());
    folder = await operatorFolder({ ...values, DISCORD_API_URL: stack.emulator.apiUrl, FEED_API_CA_FILE: stack.sandbox.caFile });
  }, 300_000);

  afterAll(async () => {
    await bot?.stop().catch(() => undefined);
    await stack?.close();
    await folder?.cleanup();
    if (stackDir) await rm(stackDir, { recursive: true, force: true });
  });

  it("the README's Quick start: the three required variables, build, deploy-commands, start, in at most eight lines", async () => {
    const { required, quickStart } = await readme();
    for (const name of required) expect(quickStart).toContain(name);
    for (const step of ['cp .env.example .env', 'npm run build', 'npm run deploy-commands', 'npm start']) expect(quickStart).toContain(step);
    expect(quickStart.trim().split('\n').length).toBeLessThanOrEqual(6);
  });

  it('deploy-commands, then the bot reaches Discord and answers /apikey set and /feed list', async () => {
    const deployed = await run(process.execPath, compiled('deploy-commands'), { cwd: folder.dir, env: bareEnv(folder.dir), timeout: 60_000 });
    expect(deployed.stdout + deployed.stderr).toMatch(/Registered 5 commands/);

    const child = spawn(process.execPath, compiled('index'), {
      cwd: folder.dir,
      env: bareEnv(folder.dir),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    bot = new BotProcess(child, silentLogger());
    await bot.waitForLog((l) => l.msg === 'ready', 60_000);

    const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS, guildId: DEMO_GUILD_ID };
    const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', ...admin }).waitForAck(15_000);
    const saved = await stack.emulator.submitModal({ interactionId: opened.id, values: { key: stack.demoKey }, ...admin }).waitForFinal({ timeoutMs: 20_000 });
    expect(shown(saved)).toContain('API key saved');

    const member = { userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS, guildId: DEMO_GUILD_ID };
    const listed = await stack.emulator.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'list', ...member }).waitForFinal({ timeoutMs: 20_000 });
    expect(shown(listed)).toMatch(/@\w+/);

    // The key store is the default of .env.example, in the operator's folder.
    expect(bot.lines.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
    const stopped = await bot.stop();
    expect(stopped.code).toBe(0);
    expect(bot.stderr.join('')).toBe('');
  });
});
