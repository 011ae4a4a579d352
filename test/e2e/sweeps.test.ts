/**
 * End to end: the health sweeps and the weekly digest with HEALTH_SWEEP_SECONDS=10
 * — real bot processes against the Discord emulator and the HTTPS sandbox, in English and in
 * Spanish (each story in guilds of its own, all stories of a stack at once). Nobody runs a command
 * after the change: the sandbox's admin library revokes a key, pauses and resumes a feed, makes a
 * feed quiet and posts again, and the audit channel must hear each change exactly once, over the
 * gateway (one process), with two shard processes (`start:sharded`, SHARD_COUNT=2), and on three
 * HTTP replicas behind nginx sharing PostgreSQL and Redis. A server without an audit channel costs
 * the feed API no request (the sandbox's own count); a digest set for the current UTC day and hour
 * is due at once (it is posted up to 6 hours after its hour), so it needs no clock knob, and it is
 * posted once. Waits are bounded polls of the bot's own sweep records (`last.at`) and of what the
 * emulator received. The replicas are skipped locally without nginx, PostgreSQL or Redis; a failure in CI.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIEmbed } from 'discord-api-types/v10';
import { Stack, missingNginx, missingServer, startPostgres, startRedis, type LocalServer } from '@feedbot/playground';
import { openBackend } from '../../src/keys/backends.js';
import type { KeyBackend } from '../../src/keys/backend.js';
import { silentLogger } from '../../src/logger.js';
import { shardOfGuild } from '../../src/shard-ids.js';
import { SWEEP_NAMESPACE, parseRecord, type SweepRecord } from '../../src/health/sweep/record.js';
import type { Lang } from '../../src/i18n/index.js';
import { StoryStack, inEachLanguage, storyGuild, type StoryGuild } from './story-kit.js';

const SWEEP_SECONDS = 10;
const INTERVAL_MS = SWEEP_SECONDS * 1000;
/** A change is posted at the guild's next slot: at most an interval, plus a loaded machine's slack. */
const CHANGE_WITHIN_MS = INTERVAL_MS + 15_000;
const POLL_MS = 100;
/** A story waits for up to four sweeps of its guild. */
const STORY_TIMEOUT_MS = 120_000;
const titles = (embeds: APIEmbed[]) => embeds.map((e) => e.title);

type Mode = 'gateway' | 'sharded' | 'replicas';

/**
 * One guild per story and language; `base` keeps each stack's ids apart from the others'. The
 * Spanish guilds are on shard 1 of 2, the English ones on shard 0 (storyGuild's `shiftMs`).
 */
function storyGuilds(base: number) {
  const set = (lang: Lang, n: number) => {
    const shift = lang === 'es' ? 1 : 0;
    return {
      revoked: storyGuild(base + n, lang, `Revoked (${lang})`, shift),
      noAudit: storyGuild(base + n + 1, lang, `No audit channel (${lang})`, shift),
      paused: storyGuild(base + n + 2, lang, `Paused (${lang})`, shift),
      quiet: storyGuild(base + n + 3, lang, `Quiet (${lang})`, shift),
      digest: storyGuild(base + n + 4, lang, `Digest (${lang})`, shift),
    };
  };
  return { en: set('en', 0), es: set('es', 5) };
}
type Guilds = ReturnType<typeof storyGuilds>;
const all = (g: Guilds): StoryGuild[] => [...Object.values(g.en), ...Object.values(g.es)];

/** A running stack and a reader of the bot's own sweep records (its key store's database). */
interface SweepStack {
  s: StoryStack;
  records: KeyBackend;
}

async function sweepRecord(st: SweepStack, g: StoryGuild): Promise<SweepRecord | undefined> {
  const entry = await st.records.readEntry(g.id);
  return entry ? parseRecord(entry.record) : undefined;
}

/** Polls, bounded, until `check` holds; fails with what it last read. */
async function until<T>(what: string, read: () => T | Promise<T>, check: (value: T) => boolean, timeoutMs = CHANGE_WITHIN_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    value = await read();
  }
  expect(check(value), `${what}: last read ${JSON.stringify(value)}`).toBe(true);
  return value;
}

/** Waits for the guild's next sweep to be recorded (its `last.at` moves on); returns its record. */
async function nextSweep(st: SweepStack, g: StoryGuild): Promise<SweepRecord> {
  const before = (await sweepRecord(st, g))?.last?.at ?? 0;
  return (await until(`a sweep of ${g.guild.name}`, () => sweepRecord(st, g), (r) => (r?.last?.at ?? 0) > before)) as SweepRecord;
}

/** Waits, bounded, for an embed titled `title` in the guild's audit channel. */
const posted = (st: SweepStack, g: StoryGuild, title: string) =>
  until(`"${title}" in #audit of ${g.guild.name}`, () => titles(st.s.embeds(g.channels.audit)), (seen) => seen.includes(title));

async function keyAndAuditChannel(st: SweepStack, g: StoryGuild, audit = true): Promise<void> {
  expect((await st.s.setKey(g, await st.s.newKey(g))).embeds[0]!.title).toBe(g.t('apikey.set.title'));
  if (audit) await st.s.command(g, 'admin', 'feedbot', 'audit-channel set', { canal: g.channels.audit });
}

/** A feed made at the sandbox (no command: nothing posted), with a post just now so it is not quiet. */
async function feedAt(st: SweepStack, g: StoryGuild, cuenta: string): Promise<number> {
  const feed = await st.s.sandbox.admin.createFeed(g.id, { cuenta, canalId: g.channels.media, tipos: ['post'] });
  await st.s.sandbox.admin.addPost(g.id, feed.id);
  return feed.id;
}

/** Every story of this file, in both languages at once, in the stack's guilds. */
function stories(mode: Mode, guilds: Guilds, stack: () => SweepStack) {
  it(`[${mode}] a revoked key is reported once with no command run, never twice; a server without an audit channel costs no request`, () =>
    inEachLanguage(async (lang) => {
      const st = stack();
      const { revoked: g, noAudit } = guilds[lang];
      await keyAndAuditChannel(st, noAudit, false);
      const spent = st.s.upstreamRequests(noAudit);
      await keyAndAuditChannel(st, g);
      await until('the first sweep (baseline)', () => sweepRecord(st, g), (r) => r?.baseline?.key === 'ok');
      expect(st.s.embeds(g.channels.audit)).toEqual([]);

      await st.s.sandbox.admin.revokeKey(g.id);
      await posted(st, g, g.t('audit.keyStopped.title'));
      // Two more sweeps meet the same refused key: nothing more is posted.
      for (let i = 0; i < 2; i++) expect((await nextSweep(st, g)).last?.result).toBe('unauthorized');
      expect(titles(await st.s.expectEmbeds(g.channels.audit, 1))).toEqual([g.t('audit.keyStopped.title')]);

      // Three intervals went by: the server without an audit channel was never swept.
      expect(st.s.upstreamRequests(noAudit)).toBe(spent);
      expect(await sweepRecord(st, noAudit)).toBeUndefined();
    }), STORY_TIMEOUT_MS);

  it(`[${mode}] a feed paused at the service, then resumed: each posted once`, () =>
    inEachLanguage(async (lang) => {
      const st = stack();
      const g = guilds[lang].paused;
      const id = await feedAt(st, g, `paused_${lang}`);
      await keyAndAuditChannel(st, g);
      await until('the first sweep (baseline)', () => sweepRecord(st, g), (r) => r?.baseline?.feeds[String(id)]?.active === true);

      await st.s.sandbox.admin.pauseFeed(g.id, id);
      await posted(st, g, g.t('sweep.feedInactive.title', { id }));
      await st.s.sandbox.admin.resumeFeed(g.id, id);
      await posted(st, g, g.t('sweep.feedActive.title', { id }));
      await nextSweep(st, g);
      const embeds = await st.s.expectEmbeds(g.channels.audit, 2);
      expect(titles(embeds)).toEqual([g.t('sweep.feedInactive.title', { id }), g.t('sweep.feedActive.title', { id })]);
      expect(embeds[0]!.footer?.text).toBe(g.t('sweep.footer'));
    }), STORY_TIMEOUT_MS);

  it(`[${mode}] a feed gone quiet, then posting again: each posted once`, () =>
    inEachLanguage(async (lang) => {
      const st = stack();
      const g = guilds[lang].quiet;
      const id = await feedAt(st, g, `quiet_${lang}`);
      await keyAndAuditChannel(st, g);
      await until('the first sweep (baseline)', () => sweepRecord(st, g), (r) => r?.baseline?.feeds[String(id)]?.quiet === false);

      // Past the default threshold of 7 days.
      await st.s.sandbox.admin.quietFeed(g.id, id, 8);
      await posted(st, g, g.t('sweep.feedQuiet.title', { id }));
      await st.s.sandbox.admin.addPost(g.id, id);
      await posted(st, g, g.t('sweep.feedPosting.title', { id }));
      await nextSweep(st, g);
      const embeds = await st.s.expectEmbeds(g.channels.audit, 2);
      expect(titles(embeds)).toEqual([g.t('sweep.feedQuiet.title', { id }), g.t('sweep.feedPosting.title', { id })]);
      expect(embeds[0]!.description).toBe(g.t('sweep.feedQuiet.description', { days: 7 }));
    }), STORY_TIMEOUT_MS);

  it(`[${mode}] a digest set for this hour is posted once, from the week's figures`, () =>
    inEachLanguage(async (lang) => {
      const st = stack();
      const g = guilds[lang].digest;
      await feedAt(st, g, `digest_${lang}`);
      await keyAndAuditChannel(st, g);
      // Due from its hour to 6 hours later: this very hour is due now, whatever the clock says.
      const now = new Date();
      const dia = (now.getUTCDay() + 6) % 7;
      const set = await st.s.command(g, 'admin', 'feedbot', 'digest set', { dia, hora: now.getUTCHours() });
      expect(set.flags).toBe(64);
      const digest = await posted(st, g, g.t('digest.title'));
      expect(digest).toEqual([g.t('digest.title')]);
      // Two more sweeps (and ticks of the digest check on every process): still one digest.
      await nextSweep(st, g);
      await nextSweep(st, g);
      const [embed] = await st.s.expectEmbeds(g.channels.audit, 1);
      const fields = Object.fromEntries((embed!.fields ?? []).map((f) => [f.name, f.value]));
      expect(fields[g.t('digest.field.feeds')]).toBe(g.t('digest.feeds.value', { active: 1, paused: 0 }));
      const status = await st.s.command(g, 'admin', 'feedbot', 'digest status');
      expect(status.embeds[0]!.description).toContain(g.t('digest.status.last', { week: (await sweepRecord(st, g))!.digest!.lastWeek! }));
    }), STORY_TIMEOUT_MS);
}

async function startStack(mode: Mode, guilds: readonly StoryGuild[], botEnv: Record<string, string>, recordsUrl: (dir: string) => string): Promise<SweepStack> {
  const dir = mkdtempSync(join(tmpdir(), `feedbot-e2e-sweeps-${mode}-`));
  const env = { HEALTH_SWEEP_SECONDS: String(SWEEP_SECONDS), ...botEnv };
  const stack = await Stack.start({
    dataDir: dir,
    logger: silentLogger(),
    extraGuilds: guilds.map((g) => g.guild),
    transport: mode === 'replicas' ? 'http' : 'gateway',
    ...(mode === 'replicas' ? { replicas: 3 } : {}),
    botEnv: env,
  });
  const s = new StoryStack(stack, dir);
  try {
    for (const g of guilds) await stack.sandbox.admin.createServer(g.id, 'server');
    await stack.deployCommands({ global: true });
    if (mode === 'sharded') {
      const manager = stack.spawnBot({ entry: 'sharded' });
      await manager.waitForLog((l) => l.msg === 'every shard process is ready', 120_000);
    } else await stack.startBot(60_000);
    const records = await openBackend({ databaseUrl: recordsUrl(dir), namespace: SWEEP_NAMESPACE, logger: silentLogger() });
    return { s, records };
  } catch (error) {
    await s.close();
    throw error;
  }
}

async function stopStack(st: SweepStack | undefined): Promise<void> {
  await st?.records.close();
  await st?.s.close();
}

const sqliteOf = (dir: string) => `sqlite://${join(dir, 'feedbot.sqlite')}`;

const missing = missingNginx() ?? missingServer('postgres') ?? missingServer('redis');
if (missing) console.warn(missing);

// The three stacks start and run side by side (each one's stories at once too): the file's wall
// time is about one stack's, a few sweeps, not three.
describe.concurrent('health sweeps, HEALTH_SWEEP_SECONDS=10', () => {
  describe('health sweeps over the gateway, one process', () => {
    const guilds = storyGuilds(100);
    let st: SweepStack;
    beforeAll(async () => {
      st = await startStack('gateway', all(guilds), {}, sqliteOf);
    }, 90_000);
    afterAll(async () => {
      if (st) {
        st.s.expectNoSecretLeaked();
        st.s.expectNoViolations();
      }
      await stopStack(st);
    }, 30_000);
    describe.concurrent('stories', () => stories('gateway', guilds, () => st));
  });

  describe('health sweeps with two shard processes (start:sharded, SHARD_COUNT=2)', () => {
    const guilds = storyGuilds(200);
    let st: SweepStack;
    beforeAll(async () => {
      // Each process sweeps the stories of one language: a guild swept by both would post twice.
      expect(new Set(Object.values(guilds.en).map((g) => shardOfGuild(g.id, 2)))).toEqual(new Set([0]));
      expect(new Set(Object.values(guilds.es).map((g) => shardOfGuild(g.id, 2)))).toEqual(new Set([1]));
      st = await startStack('sharded', all(guilds), { SHARD_COUNT: '2' }, sqliteOf);
    }, 150_000);
    afterAll(async () => {
      st?.s.expectNoViolations();
      await stopStack(st);
    }, 30_000);
    describe.concurrent('stories', () => stories('sharded', guilds, () => st));
  });

  describe.skipIf(missing !== undefined)('health sweeps on three HTTP replicas behind nginx (PostgreSQL keys, Redis leases)', () => {
    const guilds = storyGuilds(300);
    const servers: LocalServer[] = [];
    let st: SweepStack;
    beforeAll(async () => {
      servers.push(await startPostgres(), await startRedis());
      const databaseUrl = await servers[0]!.newDatabase();
      const redisUrl = await servers[1]!.newDatabase();
      st = await startStack('replicas', all(guilds), { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl }, () => databaseUrl);
    }, 150_000);
    afterAll(async () => {
      st?.s.expectNoViolations();
      await stopStack(st);
      await Promise.all(servers.map((server) => server.stop()));
    }, 60_000);
    describe.concurrent('stories', () => stories('replicas', guilds, () => st));
  });
});
