/**
 * The admin's stand-ins for the health stories: a feed made quiet (its `ultimoPost`
 * days ago, from the library and the CLI), next to pause/resume and key regenerate/revoke, as the
 * running API then answers them.
 */
import { describe, expect } from 'vitest';
import { runCli } from '../src/index.js';
import { test } from './fixtures.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody } from './helpers.js';

const DAY = 86_400_000;
type Feeds = { feeds: { id: number; estado: string; ultimoPost: string | null }[] };

function cli(dir: string) {
  return async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...args, '--data-dir', dir], { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}

describe('a quiet feed', () => {
  test('the library moves every post back so the latest is N days ago; a feed without posts gets one then', async ({ startSandbox }) => {
    const sb = await startSandbox();
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const busy = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    const empty = await sb.admin.createFeed(guildId, { cuenta: 'esa', canalId: CHANNEL, tipos: ['post'] });
    await sb.admin.addPost(guildId, busy.id, { publicadoDiscord: new Date(Date.now() - 3 * DAY).toISOString() });
    await sb.admin.addPost(guildId, busy.id);

    const quiet = await sb.admin.quietFeed(guildId, busy.id, 10);
    await sb.admin.quietFeed(guildId, empty.id, 30);
    const before = Date.now();
    const { feeds } = (await sb.call('GET', '/feeds', { key })).json as Feeds;
    const ageDays = (id: number) => (before - Date.parse(feeds.find((f) => f.id === id)!.ultimoPost!)) / DAY;
    expect(ageDays(busy.id)).toBeGreaterThanOrEqual(10);
    expect(ageDays(busy.id)).toBeLessThan(10.01);
    expect(ageDays(empty.id)).toBeGreaterThanOrEqual(30);
    expect(quiet.ultimoPost).toBe(feeds.find((f) => f.id === busy.id)!.ultimoPost);
    // The older post moved with it: still 3 days before the latest, newest first.
    const posts = ((await sb.call('GET', `/feeds/${busy.id}/posts`, { key })).json as { posts: { publicadoDiscord: string }[] }).posts;
    expect(posts).toHaveLength(2);
    expect((Date.parse(posts[0]!.publicadoDiscord) - Date.parse(posts[1]!.publicadoDiscord)) / DAY).toBeCloseTo(3, 2);
  });

  test('the CLI: feed:quiet, with pause, resume, regenerate and revoke as the stories use them', async ({ startSandbox, makeDataDir }) => {
    const dir = await makeDataDir();
    const sb = await startSandbox({ dataDir: dir });
    const run = cli(dir);
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const feed = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });

    const quiet = await run('feed:quiet', guildId, String(feed.id), '8');
    expect(quiet.code).toBe(0);
    expect(quiet.out).toMatch(new RegExp(`^feed ${feed.id} \\(@nasa\\) last posted \\d{4}-\\d\\d-\\d\\dT`));
    const listed = ((await sb.call('GET', '/feeds', { key })).json as Feeds).feeds[0]!;
    expect((Date.now() - Date.parse(listed.ultimoPost!)) / DAY).toBeGreaterThanOrEqual(8);

    expect((await run('feed:pause', guildId, String(feed.id))).out).toContain('pausado');
    expect((await run('feed:resume', guildId, String(feed.id))).out).toContain('activo');
    const regenerated = (await run('key:generate', guildId)).out.split('\n').find((l) => l.startsWith('fbk_'));
    expectErrorBody(await sb.call('GET', '/feeds', { key }), 'invalid_api_key');
    expect((await sb.call('GET', '/feeds', { key: regenerated })).status).toBe(200);
    expect((await run('key:revoke', guildId)).out).toBe('key revoked');
    expectErrorBody(await sb.call('GET', '/feeds', { key: regenerated }), 'invalid_api_key');

    expect((await run('feed:quiet', guildId, '999', '3')).err).toContain('no feed 999');
    expect((await run('feed:quiet', guildId, String(feed.id), 'many')).code).toBe(1);
    expect((await run('help')).out).toContain('feed:quiet <guildId> <feedId> <days>');
  });
});
