/**
 * The in-memory read model (key identities, feed lists) and its invalidation: writes through the
 * sandbox show at once, and so do commits by another connection or another process (the admin
 * CLI), with and without the WAL index shortcut.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedListResponseSchema } from '@feedbot/feed-api-contract';
import { CommitWatch } from '../src/commit-watch.js';
import { Db } from '../src/db.js';
import { hashApiKey } from '../src/keys.js';
import { ReadCache } from '../src/read-cache.js';
import { DB_FILE } from '../src/server.js';
import { SharedReading } from '../src/shared-reading.js';
import { SandboxStore, type FeedRecord, type KeyIdentity } from '../src/store.js';
import { WalIndexHeader } from '../src/wal-index.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody, startTestSandbox, tempDir, type TestSandbox } from './helpers.js';

/** The package folder: its CLIs run from their sources, resolving workspace packages to theirs. */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const GUILD = '1234567890123456789';
const NOW = '2026-03-04T10:00:00.000Z';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function dataDir(): Promise<string> {
  const dir = await tempDir();
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function openStore(file: string, options: Parameters<typeof SandboxStore.open>[1] = {}): Promise<SandboxStore> {
  const store = await SandboxStore.open(file, options);
  cleanups.push(() => store.close());
  return store;
}

const identity = (guildId: string, keyHash: string): KeyIdentity => ({
  guildId,
  keyHash,
  last4: 'abcd',
  scopes: ['feeds:read'],
  rateLimit: null,
  createdAt: NOW,
  plan: 'server',
});

const feed = (id: number, guildId: string): FeedRecord => ({
  id,
  guildId,
  cuenta: 'nasa',
  canalId: CHANNEL,
  estado: 'activo',
  tipos: ['post'],
  filtros: [],
  creado: NOW,
  ultimoPost: null,
});

describe('ReadCache', () => {
  it('keeps what it is given, frozen, and drops one guild or everything', () => {
    const cache = new ReadCache();
    const key = cache.putKey(cache.generation, identity('1', 'h1'));
    cache.putKey(cache.generation, identity('2', 'h2'));
    const feeds = cache.putFeeds(cache.generation, '1', [feed(1, '1')]);
    cache.putFeeds(cache.generation, '2', [feed(2, '2')]);
    expect(cache.key('h1')).toBe(key);
    expect(cache.feeds('1')).toBe(feeds);
    expect(Object.isFrozen(key) && Object.isFrozen(key.scopes)).toBe(true);
    expect(Object.isFrozen(feeds) && Object.isFrozen(feeds[0]) && Object.isFrozen(feeds[0]?.tipos)).toBe(true);

    cache.dropGuild('1');
    expect(cache.key('h1')).toBeUndefined();
    expect(cache.feeds('1')).toBeUndefined();
    expect(cache.key('h2')?.guildId).toBe('2');
    expect(cache.feeds('2')).toHaveLength(1);

    cache.clear();
    expect(cache.key('h2')).toBeUndefined();
    expect(cache.feeds('2')).toBeUndefined();
  });

  it('a new key of a server replaces the cached old one', () => {
    const cache = new ReadCache();
    cache.putKey(cache.generation, identity('1', 'old'));
    cache.putKey(cache.generation, identity('1', 'new'));
    expect(cache.key('old')).toBeUndefined();
    expect(cache.key('new')?.guildId).toBe('1');
  });

  it('does not store a fill that a drop overtook (the rows may predate the write)', () => {
    const cache = new ReadCache();
    const before = cache.generation;
    cache.dropGuild('3');
    expect(cache.putKey(before, identity('1', 'h1')).keyHash).toBe('h1');
    expect(cache.putFeeds(before, '1', [feed(1, '1')])).toHaveLength(1);
    expect(cache.key('h1')).toBeUndefined();
    expect(cache.feeds('1')).toBeUndefined();
  });
});

describe('SharedReading', () => {
  function deferredRuns() {
    const runs: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
    const reading = new SharedReading(
      () =>
        new Promise<number>((resolve, reject) => {
          runs.push({ resolve, reject });
        }),
    );
    return { runs, reading };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('never answers a caller with a run that started before it called; shares the next run among the rest', async () => {
    const { runs, reading } = deferredRuns();
    const first = reading.read();
    expect(runs).toHaveLength(1);
    const second = reading.read();
    const third = reading.read();
    await tick();
    expect(runs).toHaveLength(1); // queued behind the run in flight, not started yet
    runs[0]!.resolve(1);
    expect(await first).toBe(1);
    await tick();
    expect(runs).toHaveLength(2);
    runs[1]!.resolve(2);
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    const fourth = reading.read();
    expect(runs).toHaveLength(3);
    runs[2]!.resolve(3);
    expect(await fourth).toBe(3);
    await reading.idle();
  });

  it('a failed run fails its callers only; the queued run still starts', async () => {
    const { runs, reading } = deferredRuns();
    const first = reading.read();
    const second = reading.read();
    runs[0]!.reject(new Error('busy'));
    await expect(first).rejects.toThrow('busy');
    await tick();
    expect(runs).toHaveLength(2);
    runs[1]!.resolve(7);
    expect(await second).toBe(7);
  });
});

describe('WAL index header', () => {
  it('stays the same across reads and changes with every commit of another connection', async () => {
    const file = join(await dataDir(), DB_FILE);
    await openStore(file);
    const other = await Db.open(file);
    cleanups.push(() => other.close());
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

  it('is not used where there is no WAL index', async () => {
    const dir = await dataDir();
    expect(WalIndexHeader.open(join(dir, 'missing.db'))).toBeUndefined();
    const rollback = await Db.open(join(dir, 'rollback.db'));
    await rollback.exec('PRAGMA journal_mode = DELETE; CREATE TABLE t (x);');
    await rollback.close();
    expect(WalIndexHeader.open(join(dir, 'rollback.db'))).toBeUndefined();
  });
});

describe('CommitWatch', () => {
  async function watched(header?: { read(): Buffer | undefined }) {
    const file = join(await dataDir(), DB_FILE);
    const writer = await openStore(file);
    await writer.createServer(GUILD, 'server', NOW);
    let changes = 0;
    const watch = await CommitWatch.open(file, { onChange: () => changes++, header, fastPathMaxAgeMs: 20 });
    cleanups.push(() => watch.close());
    return { writer, watch, changes: () => changes };
  }

  it('sees each commit of another connection on the next sync', async () => {
    const { writer, watch, changes } = await watched();
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

  it('stops using a WAL index header that does not move with commits', async () => {
    const frozen = Buffer.alloc(96, 1);
    const { writer, watch, changes } = await watched({ read: () => frozen });
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
  async function pair() {
    const file = join(await dataDir(), DB_FILE);
    const sandbox = await openStore(file, { walIndexShortcut });
    // The admin CLI's side: its own connection (in tests, in this process; see below for another process).
    const cli = await openStore(file, { walIndexShortcut });
    expect(sandbox.watchesWalIndex).toBe(walIndexShortcut);
    await cli.createServer(GUILD, 'server', NOW);
    await cli.saveKey(GUILD, 'hash-1', '1111', ['feeds:read'], null, NOW);
    const created = await cli.createFeed(GUILD, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: [], creado: NOW }, 50);
    if (created.kind !== 'created') throw new Error(created.kind);
    return { sandbox, cli, feedId: created.feed.id };
  }

  it('sees key regeneration, revocation and plan changes on the next lookup', async () => {
    const { sandbox, cli } = await pair();
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

  it('sees pauses, new feeds, posts and deletions in the next feed list', async () => {
    const { sandbox, cli, feedId } = await pair();
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

  it('concurrent lookups issued after a commit all see it', async () => {
    const { sandbox, cli } = await pair();
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 20 }, () => sandbox.findKeyByHash(`hash-${round + 1}`)));
      await cli.saveKey(GUILD, `hash-${round + 2}`, '0000', ['feeds:read'], null, NOW);
      const seen = await Promise.all(Array.from({ length: 20 }, () => sandbox.findKeyByHash(`hash-${round + 1}`)));
      expect(seen.every((k) => k === undefined), `round ${round}`).toBe(true);
    }
  });

});

describe("the store's own writes", () => {
  it('show at once without any watch (an in-memory database has none)', async () => {
    const store = await openStore(':memory:');
    expect(store.watchesWalIndex).toBe(false);
    await store.createServer(GUILD, 'server', NOW);
    await store.saveKey(GUILD, 'hash-1', '1111', ['feeds:read'], null, NOW);
    const created = await store.createFeed(GUILD, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'], filtros: [], creado: NOW }, 50);
    if (created.kind !== 'created') throw new Error(created.kind);
    const id = created.feed.id;
    expect((await store.findKeyByHash('hash-1'))?.plan).toBe('server');
    expect((await store.listFeeds(GUILD)).map((f) => f.estado)).toEqual(['activo']);

    await store.setFeedState(GUILD, id, 'pausado');
    expect((await store.listFeeds(GUILD)).map((f) => f.estado)).toEqual(['pausado']);
    await store.insertPost({ code: 'BBBBBBBBBBB', feedId: id, guildId: GUILD, cuenta: 'nasa', tipo: 'post', caption: 'x', publicadoEn: NOW, publicadoDiscord: NOW });
    expect((await store.listFeeds(GUILD))[0]?.ultimoPost).toBe(NOW);
    await store.createFeed(GUILD, { cuenta: 'esa', canalId: CHANNEL, tipos: ['reel'], filtros: [], creado: NOW }, 50);
    expect(await store.listFeeds(GUILD)).toHaveLength(2);
    await store.deleteFeed(GUILD, id);
    expect((await store.listFeeds(GUILD)).map((f) => f.cuenta)).toEqual(['esa']);

    await store.setPlan(GUILD, 'free');
    expect((await store.findKeyByHash('hash-1'))?.plan).toBe('free');
    await store.saveKey(GUILD, 'hash-2', '2222', [], null, NOW);
    expect(await store.findKeyByHash('hash-1')).toBeUndefined();
    expect((await store.findKeyByHash('hash-2'))?.scopes).toEqual([]);
    await store.deleteKey(GUILD);
    expect(await store.findKeyByHash('hash-2')).toBeUndefined();
  });
});

describe('GET /feeds follows writes at once', () => {
  let sb: TestSandbox;
  afterEach(async () => {
    await sb?.dispose();
  });

  const list = async (key: string) => {
    const res = await sb.call('GET', '/feeds', { key });
    expect(res.status).toBe(200);
    return FeedListResponseSchema.parse(res.json).feeds;
  };

  it('through the API, the admin and the simulator', async () => {
    sb = await startTestSandbox({ rateLimit: { limit: 1000 } });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    expect(await list(key)).toEqual([]);
    expect(await list(key)).toEqual([]);

    const created = await sb.call('POST', '/feeds', { key, body: { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] } });
    expect(created.status).toBe(201);
    const id = (created.json as { id: number }).id;
    expect((await list(key)).map((f) => f.id)).toEqual([id]);

    await sb.admin.pauseFeed(guildId, id);
    expect((await list(key))[0]?.estado).toBe('pausado');
    await sb.admin.resumeFeed(guildId, id);
    expect((await list(key))[0]?.estado).toBe('activo');

    const [post] = await sb.admin.simulateTick({ everyFeed: true });
    expect((await list(key))[0]?.ultimoPost).toBe(post?.publicadoDiscord);

    expect((await sb.call('DELETE', `/feeds/${id}`, { key })).status).toBe(200);
    expect(await list(key)).toEqual([]);

    const regenerated = await sb.admin.generateKey(guildId, ['feeds:read']);
    expectErrorBody(await sb.call('GET', '/feeds', { key }), 'invalid_api_key');
    expect(await list(regenerated)).toEqual([]);
    await sb.admin.setPlan(guildId, 'free');
    expectErrorBody(await sb.call('GET', '/feeds', { key: regenerated }), 'plan_required');
  });

  it('when the admin CLI changes the data from another process', { timeout: 60_000 }, async () => {
    const dir = await dataDir();
    sb = await startTestSandbox({ dataDir: dir, rateLimit: { limit: 1000 } });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const feed = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    expect((await list(key))[0]?.estado).toBe('activo');
    expect(await list(key)).toHaveLength(1);

    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--conditions=@feedbot/source', '--import', 'tsx', 'src/cli.ts', ...args, '--data-dir', dir], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 30_000,
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
      });

    const paused = await cli('feed:pause', guildId, String(feed.id));
    expect(paused.code, paused.out).toBe(0);
    expect((await list(key))[0]?.estado).toBe('pausado');

    const regenerated = await cli('key:generate', guildId, '--scopes', 'feeds:read');
    expect(regenerated.code, regenerated.out).toBe(0);
    const newKey = regenerated.out.split('\n').find((line) => line.startsWith('fbk_'));
    expect(hashApiKey(newKey ?? '')).not.toBe(hashApiKey(key));
    expectErrorBody(await sb.call('GET', '/feeds', { key }), 'invalid_api_key');
    expect((await list(newKey!))[0]?.estado).toBe('pausado');
  });
});
