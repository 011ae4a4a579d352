/**
 * End to end, forgetting servers — the real bot process against the Discord
 * emulator and the HTTPS sandbox. Over the gateway, the bot removed from a server (GUILD_DELETE
 * without `unavailable`) loses that server's data at once with GUILD_DATA_RETENTION_HOURS=0, and
 * keeps it when added back within a retention of an hour; in HTTP mode (no gateway) the
 * reconciliation (GUILD_RECONCILE_SECONDS=5, a test-only setting) finds the removal; and
 * `/feedbot forget` in English and Spanish posts its last audit line, then deletes. Every check
 * reads what Discord (the emulator) received, the bot's answers, and the bot's own store file.
 * Every wait is bounded.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stack } from '@feedbot/playground';
import { openBackend } from '../../src/keys/backends.js';
import { silentLogger } from '../../src/logger.js';
import type { Lang } from '../../src/i18n/index.js';
import { StoryStack, inEachLanguage, storyGuild, titled, type StoryGuild, type Transport } from './story-kit.js';

const POLL_MS = 50;
/** Each stack's data folder: the bot's store file is read there. */
const dirs = new WeakMap<StoryStack, string>();

async function startStack(transport: Transport, guilds: readonly StoryGuild[], botEnv: Record<string, string>): Promise<StoryStack> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-forget-'));
  const stack = await Stack.start({ dataDir: dir, logger: silentLogger(), extraGuilds: guilds.map((g) => g.guild), transport, botEnv });
  const story = new StoryStack(stack, dir);
  dirs.set(story, dir);
  try {
    for (const g of guilds) await stack.sandbox.admin.createServer(g.id, 'server');
    await stack.deployCommands({ global: true });
    await stack.startBot();
  } catch (error) {
    await story.close();
    throw error;
  }
  return story;
}

/** The guild ids with a record in one namespace of the bot's own SQLite store, read beside the running bot. */
async function storedGuilds(dataDir: string, namespace: string): Promise<string[]> {
  const db = await openBackend({ databaseUrl: `sqlite://${join(dataDir, 'feedbot.sqlite')}`, namespace, logger: silentLogger(), mustExist: true });
  try {
    return (await db.listEntries()).map((e) => e.guildId);
  } finally {
    await db.close();
  }
}

/** Polls, bounded, until `check` holds; fails with what it last read. */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    value = await read();
  }
  expect(check(value), `${what}: last read ${JSON.stringify(value)}`).toBe(true);
  return value;
}

/** The guild has a key, settings with an audit channel, and a departure-free record. */
async function keyAndSettings(s: StoryStack, g: StoryGuild): Promise<void> {
  expect((await s.setKey(g, await s.newKey(g))).embeds[0]!.title).toBe(g.t('apikey.set.title'));
  await s.command(g, 'admin', 'feedbot', 'audit-channel set', { canal: g.channels.audit });
}

const dataDir = (s: StoryStack) => dirs.get(s)!;

describe('forgetting: the bot removed from a server, over the gateway, GUILD_DATA_RETENTION_HOURS=0', () => {
  const gone = storyGuild(1, 'en', 'Removed (en)');
  const forgetting = { en: storyGuild(2, 'en', 'Forget (en)'), es: storyGuild(3, 'es', 'Forget (es)') };
  let s: StoryStack;

  beforeAll(async () => {
    s = await startStack('gateway', [gone, ...Object.values(forgetting)], { GUILD_DATA_RETENTION_HOURS: '0' });
  }, 90_000);

  afterAll(async () => {
    await s?.close();
  }, 30_000);

  it('GUILD_DELETE deletes the key and settings at once; added back, the server starts over', async () => {
    await keyAndSettings(s, gone);
    expect(await storedGuilds(dataDir(s), 'guild-keys')).toContain(gone.id);
    s.emulator.removeBotFromGuild(gone.id);
    await until('the key deleted', () => storedGuilds(dataDir(s), 'guild-keys'), (ids) => !ids.includes(gone.id));
    await until('the settings deleted', () => storedGuilds(dataDir(s), 'feedbot-settings'), (ids) => !ids.includes(gone.id));
    s.emulator.addBotToGuild(gone.id);
    const status = await s.command(gone, 'admin', 'apikey', 'status');
    expect(status.embeds[0]!.description).toBe(gone.t('apikey.status.none'));
    // Nothing was posted to the audit channel: the bot had left.
    expect(s.embeds(gone.channels.audit).map((e) => e.title)).toEqual([]);
  });

  it('/feedbot forget: Delete posts the last audit line, then the data is gone (en, es)', () =>
    inEachLanguage(async (lang: Lang) => {
      const g = forgetting[lang];
      const t = g.t;
      await keyAndSettings(s, g);
      const asked = await s.command(g, 'admin', 'feedbot', 'forget');
      expect(asked.flags).toBe(64);
      expect(asked.embeds[0]!.title).toBe(t('forget.title'));
      const done = await s.pressFor(g, 'admin', asked, t('forget.button.delete'), titled(t('forget.done.title')));
      expect(done.embeds[0]!.description).toBe(t('forget.done'));
      const posts = await s.expectEmbeds(g.channels.audit, 1);
      expect(posts[0]!.title).toBe(t('forget.audit.title'));
      expect(await storedGuilds(dataDir(s), 'guild-keys')).not.toContain(g.id);
      expect(await storedGuilds(dataDir(s), 'feedbot-settings')).not.toContain(g.id);
      expect((await s.command(g, 'admin', 'apikey', 'status')).embeds[0]!.description).toBe(t('apikey.status.none'));
    }));
});

describe('forgetting: removed and added back within GUILD_DATA_RETENTION_HOURS=1, over the gateway', () => {
  const g = storyGuild(4, 'es', 'Back (es)');
  let s: StoryStack;

  beforeAll(async () => {
    s = await startStack('gateway', [g], { GUILD_DATA_RETENTION_HOURS: '1' });
  }, 90_000);

  afterAll(async () => {
    await s?.close();
  }, 30_000);

  it('the departure is marked, then cleared when the bot is back; nothing is lost', async () => {
    await keyAndSettings(s, g);
    s.emulator.removeBotFromGuild(g.id);
    await until('the departure marked', () => storedGuilds(dataDir(s), 'feedbot-departures'), (ids) => ids.includes(g.id));
    s.emulator.addBotToGuild(g.id);
    await until('the departure cleared', () => storedGuilds(dataDir(s), 'feedbot-departures'), (ids) => !ids.includes(g.id));
    const status = await s.command(g, 'admin', 'apikey', 'status');
    expect(status.embeds[0]!.title).toBe(g.t('apikey.status.title'));
    expect(await storedGuilds(dataDir(s), 'feedbot-settings')).toContain(g.id);
  });
});

describe('forgetting: HTTP mode finds the removal through GET /users/@me/guilds (GUILD_RECONCILE_SECONDS=5)', () => {
  const g = storyGuild(5, 'en', 'Reconciled (en)');
  const stays = storyGuild(6, 'es', 'Stays (es)');
  let s: StoryStack;

  beforeAll(async () => {
    s = await startStack('http', [g, stays], { GUILD_DATA_RETENTION_HOURS: '0', GUILD_RECONCILE_SECONDS: '5' });
  }, 90_000);

  afterAll(async () => {
    await s?.close();
  }, 30_000);

  it("the next reconciliation deletes the removed server's data and keeps the other's", async () => {
    await keyAndSettings(s, g);
    await keyAndSettings(s, stays);
    s.emulator.removeBotFromGuild(g.id);
    await until('the key deleted', () => storedGuilds(dataDir(s), 'guild-keys'), (ids) => !ids.includes(g.id), 30_000);
    expect(await storedGuilds(dataDir(s), 'guild-keys')).toContain(stays.id);
    expect(s.emulator.calls.some((c) => c.path === '/users/@me/guilds')).toBe(true);
  });
});
