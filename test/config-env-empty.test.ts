/**
 * An empty variable means unset, for discord.js too. `.env.example` ships `SHARD_COUNT=`;
 * process.loadEnvFile puts it into process.env as '' and discord.js's Client reads
 * process.env.SHARD_COUNT (and SHARDS) itself: Number('') is 0, so left there it would crash the
 * first real start with "The shardCount option must be a number greater than or equal to 1". compose's
 * `env_file: .env` hands the same empty values over in the real environment instead.
 *
 * Here the real bot process (from source) starts in a folder whose `.env` holds the empty lines,
 * with the same variables empty in its real environment, against the Discord emulator and the
 * sandbox: it must reach READY and answer a command.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, BotProcess, Stack } from '@feedbot/playground';
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import { dropEmptyVariables } from '../src/env-file.js';
import { silentLogger } from '../src/logger.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
/** Variables discord.js reads from process.env on its own, besides what feedbot's config reads. */
const EMPTY = ['SHARD_COUNT', 'SHARDS', 'SHARDING_MANAGER', 'SHARD_IDS', 'METRICS_PORT', 'REDIS_URL', 'LOG_PRETTY', 'DISCORD_PUBLIC_KEY'];

describe('dropEmptyVariables', () => {
  it('deletes every empty variable and keeps the others, blanks included', () => {
    const env: NodeJS.ProcessEnv = { SHARD_COUNT: '', SHARDS: '', LOG_LEVEL: 'info', SPACE: ' ' };
    dropEmptyVariables(env);
    expect(env).toEqual({ LOG_LEVEL: 'info', SPACE: ' ' });
    expect('SHARD_COUNT' in env).toBe(false);
  });
});

describe('keys:rotate with empty variables in its environment', () => {
  it('reads them as unset (LOG_LEVEL, KEY_STORE_NAMESPACE) and gets as far as the key database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feedbot-env-empty-rotate-'));
    try {
      const env = {
        PATH: process.env.PATH,
        KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 1).toString('base64'),
        NEW_KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 2).toString('base64'),
        DATABASE_URL: `sqlite://${join(dir, 'absent.sqlite')}`,
        LOG_LEVEL: '',
        KEY_STORE_NAMESPACE: '',
      };
      const failed = await promisify(execFile)(process.execPath, ['--conditions=@feedbot/source', '--import', TSX, join(ROOT, 'src', 'scripts', 'rotate-keys.ts')], { cwd: dir, env, timeout: 60_000 }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toMatch(/key database .*absent\.sqlite does not exist/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the bot started from a folder whose .env (and environment) hold empty variables', () => {
  let stack: Stack;
  let stackDir: string;
  let folder: string;
  let bot: BotProcess | undefined;

  beforeAll(async () => {
    stackDir = await mkdtemp(join(tmpdir(), 'feedbot-env-empty-stack-'));
    folder = await mkdtemp(join(tmpdir(), 'feedbot-env-empty-'));
    stack = await Stack.start({ dataDir: stackDir, logger: silentLogger() });
    await stack.deployCommands();
  }, 120_000);

  afterAll(async () => {
    await bot?.stop().catch(() => undefined);
    await stack?.close();
    for (const dir of [folder, stackDir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reaches READY and answers /apikey set', async () => {
    const lines = Object.entries({ ...stack.env, DATABASE_URL: `sqlite://${join(folder, 'feedbot.sqlite')}` })
      .filter(([name]) => !EMPTY.includes(name))
      .map(([name, value]) => `${name}=${value}`);
    await writeFile(join(folder, '.env'), [...lines, ...EMPTY.map((name) => `${name}=`), ''].join('\n'), { mode: 0o600 });
    const child = spawn(process.execPath, ['--conditions=@feedbot/source', '--import', TSX, join(ROOT, 'src', 'index.ts')], {
      cwd: folder,
      // As compose's env_file hands them over: empty in the real environment as well.
      env: { PATH: process.env.PATH, HOME: folder, ...Object.fromEntries(EMPTY.map((name) => [name, ''])) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    bot = new BotProcess(child, silentLogger());
    await bot.waitForLog((l) => l.msg === 'ready', 60_000);

    const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS, guildId: DEMO_GUILD_ID };
    const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', ...admin }).waitForAck(15_000);
    expect(opened.ack?.type).toBe(9);

    const stopped = await bot.stop();
    expect(stopped.code).toBe(0);
    expect(bot.lines.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
  }, 120_000);
});
