/**
 * Commits by other connections and processes (above all the admin CLI, which writes to the same
 * file while the sandbox runs) are seen by the sandbox's read cache on the very next request,
 * with and without the WAL index shortcut.
 */
import { join } from 'node:path';
import { describe, expect, onTestFinished } from 'vitest';
import { CommitWatch, type HeaderSource } from '../src/commit-watch.js';
import { Db } from '../src/db.js';
import { hashApiKey } from '../src/keys.js';
import { DB_FILE } from '../src/server.js';
import { WalIndexHeader } from '../src/wal-index.js';
import { test, type SandboxFixtures } from './fixtures.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody, listFeedsOverHttps, runCliProcess } from './helpers.js';

const GUILD = '1234567890123456789';
const NOW = '2026-03-04T10:00:00.000Z';
type OpenStore = SandboxFixtures['openStore'];

describe('WAL index header', () => {
  test('stays the same across reads and changes with every commit of another connection', async ({ makeDataDir, openStore }) => {
    const file = join(await makeDataDir(), DB_FILE);
    await openStore(file);
    const other = await Db.open(file);
    onTestFinished(() => other.close());
    const header = WalIndexHeader.open(file);
    expect(header).toBeDefined();
    const snapshot = () => Buffer.from(header!.read()!);

    const start = snapshot();
    await other.all('SELECT * FROM feeds');
    await other.get('PRAGMA data_version');
    expect(snapshot().equals(start)).toBe(true);

    let previous = start;
    for (let i = 0; i < 5; i++) {
      await other.run('INSERT INTO servers (guild_id, plan, created_at) VALUES (?, ?, ?)', [`1${String(i).padStart(17, '0')}`, 'free', NOW]);
      const now = snapshot();
      expect(now.equals(previous), `commit ${i}`).toBe(false);
      previous = now;
    }
  });

  test('is not used where there is no WAL index', async ({ makeDataDir }) => {
    const dir = await makeDataDir();
    expect(WalIndexHeader.open(join(dir, 'missing.db'))).toBeUndefined();
    const rollback = await Db.open(join(dir, 'rollback.db'));
    await rollback.exec('PRAGMA journal_mode = DELETE; CREATE TABLE t (x);');
    await rollback.close();
    expect(WalIndexHeader.open(join(dir, 'rollback.db'))).toBeUndefined();
  });
});

describe('CommitWatch', () => {
  /** A store writing to a new database in `dir` and a watch over it; `header` stands in for the WAL index header. */
  async function watched(openStore: OpenStore, dir: string, header?: HeaderSource) {
    const file = join(dir, DB_FILE);
    const writer = await openStore(file);
    await writer.createServer(GUILD, 'server', NOW);
    let changes = 0;
    const watch = await CommitWatch.open(file, { onChange: () => changes++, header, fastPathMaxAgeMs: 20 });
    onTestFinished(() => watch.close());
    return { writer, watch, changes: () => changes };
  }

  test('sees each commit of another connection on the next sync', async ({ makeDataDir, openStore }) => {
    const { writer, watch, changes } = await watched(openStore, await makeDataDir());
    expect(watch.usesWalIndex).toBe(true);
    for (const plan of ['free', 'pro', 'server'] as const) {
      const before = changes();
      await watch.sync();
      expect(changes()).toBe(before);
      await writer.setPlan(GUILD, plan);
      await watch.sync();
      expect(changes(), plan).toBe(before + 1);
    }
    expect(watch.usesWalIndex).toBe(true);
  });

  test('stops using a WAL index header that does not move with commits', async ({ makeDataDir, openStore }) => {
    const frozen = Buffer.alloc(96, 1);
    const { writer, watch, changes } = await watched(openStore, await makeDataDir(), { read: () => frozen });
    expect(watch.usesWalIndex).toBe(true);
    await writer.setPlan(GUILD, 'free');
    // Past the fast path's age limit a reading happens, sees the commit and catches the header lying.
    await new Promise((resolve) => setTimeout(resolve, 40));
    await watch.sync();
    expect(changes()).toBe(1);
    expect(watch.usesWalIndex).toBe(false);
    await writer.setPlan(GUILD, 'pro');
    await watch.sync();
    expect(changes()).toBe(2);
  });
});

describe.each([
  { mode: 'WAL index shortcut', walIndexShortcut: true },
  { mode: 'data_version only', walIndexShortcut: false },
])('store cache and another connection ($mode)', ({ walIndexShortcut }) => {
  /** The sandbox's store and, on its own connection, the admin CLI's (in this process; see below for another process). */
  async function pair(openStore: OpenStore, dir: string) {
    const file = join(dir, DB_FILE);
    const sandbox = await openStore(file, { walIndexShortcut });
    const cli = await openStore(file, { walIndexShortcut });
    expect(sandbox.watchesWalIndex).toBe(walIndexShortcut);
    await cli.createServer(GUILD, 'server', NOW);
    await cli.saveKey(GUILD, 'hash-1', '1111', ['feeds:read'], null, NOW);
    const created = await cli.createFeed(GUILD, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: [], creado: NOW }, 50);
    if (created.kind !== 'created') throw new Error(created.kind);
    return { sandbox, cli, feedId: created.feed.id };
  }

  test('sees key regeneration, revocation and plan changes on the next lookup', async ({ makeDataDir, openStore }) => {
    const { sandbox, cli } = await pair(openStore, await makeDataDir());
    expect((await sandbox.findKeyByHash('hash-1'))?.scopes).toEqual(['feeds:read']);
    expect(await sandbox.findKeyByHash('hash-1')).toBeDefined(); // now from memory

    await cli.saveKey(GUILD, 'hash-2', '2222', ['feeds:read', 'feeds:write'], 5, NOW);
    expect(await sandbox.findKeyByHash('hash-1')).toBeUndefined();
    expect(await sandbox.findKeyByHash('hash-2')).toMatchObject({ guildId: GUILD, scopes: ['feeds:read', 'feeds:write'], rateLimit: 5, plan: 'server' });

    await cli.setPlan(GUILD, 'pro');
    expect((await sandbox.findKeyByHash('hash-2'))?.plan).toBe('pro');

    await cli.deleteKey(GUILD);
    expect(await sandbox.findKeyByHash('hash-2')).toBeUndefined();
  });

  test('sees pauses, new feeds, posts and deletions in the next feed list', async ({ makeDataDir, openStore }) => {
    const { sandbox, cli, feedId } = await pair(openStore, await makeDataDir());
    expect((await sandbox.listFeeds(GUILD)).map((f) => f.estado)).toEqual(['activo']);

    await cli.setFeedState(GUILD, feedId, 'pausado');
    expect((await sandbox.listFeeds(GUILD)).map((f) => f.estado)).toEqual(['pausado']);

    await cli.insertPost({ code: 'AAAAAAAAAAA', feedId, guildId: GUILD, cuenta: 'nasa', tipo: 'post', caption: 'x', publicadoEn: NOW, publicadoDiscord: NOW });
    expect((await sandbox.listFeeds(GUILD))[0]?.ultimoPost).toBe(NOW);

    await cli.createFeed(GUILD, { cuenta: 'esa', canalId: CHANNEL, tipos: ['reel'], filtros: [], creado: NOW }, 50);
    expect((await sandbox.listFeeds(GUILD)).map((f) => f.cuenta)).toEqual(['nasa', 'esa']);

    await cli.deleteFeed(GUILD, feedId);
    expect((await sandbox.listFeeds(GUILD)).map((f) => f.cuenta)).toEqual(['esa']);
  });

  test('concurrent lookups issued after a commit all see it', async ({ makeDataDir, openStore }) => {
    const { sandbox, cli } = await pair(openStore, await makeDataDir());
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 20 }, () => sandbox.findKeyByHash(`hash-${round + 1}`)));
      await cli.saveKey(GUILD, `hash-${round + 2}`, '0000', ['feeds:read'], null, NOW);
      const seen = await Promise.all(Array.from({ length: 20 }, () => sandbox.findKeyByHash(`hash-${round + 1}`)));
      expect(seen.every((k) => k === undefined), `round ${round}`).toBe(true);
    }
  });
});

describe('the admin CLI in another process', () => {
  test('a running sandbox sees its changes on the very next request', { timeout: 60_000 }, async ({ makeDataDir, startSandbox }) => {
    const dir = await makeDataDir();
    const sb = await startSandbox({ dataDir: dir, rateLimit: { limit: 1000 } });
    const list = (key: string) => listFeedsOverHttps(sb, key);
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const feed = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    expect((await list(key))[0]?.estado).toBe('activo');
    expect(await list(key)).toHaveLength(1);

    const paused = await runCliProcess(['feed:pause', guildId, String(feed.id)], dir);
    expect(paused.code, paused.out).toBe(0);
    expect((await list(key))[0]?.estado).toBe('pausado');

    const regenerated = await runCliProcess(['key:generate', guildId, '--scopes', 'feeds:read'], dir);
    expect(regenerated.code, regenerated.out).toBe(0);
    const newKey = regenerated.out.split('\n').find((line) => line.startsWith('fbk_'));
    expect(hashApiKey(newKey ?? '')).not.toBe(hashApiKey(key));
    expectErrorBody(await sb.call('GET', '/feeds', { key }), 'invalid_api_key');
    expect((await list(newKey!))[0]?.estado).toBe('pausado');
  });
});
