/**
 * Data that stays: SQLite in the data folder across restarts, keys only as hashes, the certificate
 * kept (or supplied, or renewed), the admin CLI over the same folder, and `npm run sandbox`.
 */
import { spawn } from 'node:child_process';
import { copyFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { describe, expect, onTestFinished } from 'vitest';
import { createLogger } from '../src/log.js';
import { Db } from '../src/db.js';
import { DEMO_GUILD_ID, DEMO_KEY_FILE, parseSandboxEnv, runCli, startDemoSandbox } from '../src/index.js';
import { hashApiKey } from '../src/keys.js';
import { test } from './fixtures.js';
import { ALL_SCOPES, CHANNEL, PACKAGE_ROOT, expectErrorBody, runCliProcess } from './helpers.js';

function captureLogs(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, logger: createLogger({ name: 'sandbox-test', level: 'trace', destination: { write: (line: string) => lines.push(line) } }) };
}

describe('persistence', () => {
  test('servers, keys, feeds, states, posts and deletions survive a restart; the certificate is kept', async ({ makeDataDir, startSandbox }) => {
    const dir = await makeDataDir();
    const first = await startSandbox({ dataDir: dir });
    const { guildId, key } = await first.admin.createScratchServer(ALL_SCOPES);
    const kept = await first.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    const paused = await first.admin.createFeed(guildId, { cuenta: 'esa', canalId: CHANNEL, tipos: ['reel'] });
    const deleted = await first.admin.createFeed(guildId, { cuenta: 'jaxa', canalId: CHANNEL, tipos: ['post'] });
    const post = await first.admin.addPost(guildId, kept.id);
    await first.admin.pauseFeed(guildId, paused.id);
    expect((await first.call('DELETE', `/feeds/${deleted.id}`, { key })).status).toBe(200);
    const before = (await first.call('GET', '/feeds', { key })).json;
    const cert = first.caPem;
    await first.dispose();

    const second = await startSandbox({ dataDir: dir });
    expect(second.caPem).toBe(cert);
    expect(second.caFile).toBe(join(dir, 'cert.pem'));
    const after = await second.call('GET', '/feeds', { key });
    expect(after.status).toBe(200);
    expect(after.json).toEqual(before);
    expect((after.json as { feeds: { id: number; estado: string }[] }).feeds.map((f) => [f.id, f.estado])).toEqual([
      [kept.id, 'activo'],
      [paused.id, 'pausado'],
    ]);
    const posts = (await second.call('GET', `/feeds/${kept.id}/posts`, { key })).json as { posts: { id: string }[] };
    expect(posts.posts.map((p) => p.id)).toEqual([post.code]);
    expect((await second.call('GET', `/feeds/${deleted.id}/posts`, { key })).status).toBe(404);
    // A new feed never reuses a deleted id.
    const created = await second.call('POST', '/feeds', { key, body: { cuenta: 'jaxa', canalId: CHANNEL, tipos: ['post'] } });
    expect((created.json as { id: number }).id).toBeGreaterThan(deleted.id);
  });

  test('stores keys only as SHA-256 hashes: the plaintext appears in no file of the data folder', async ({ makeDataDir, startSandbox }) => {
    const dir = await makeDataDir();
    const sb = await startSandbox({ dataDir: dir });
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const regenerated = await sb.admin.generateKey(guildId, ['feeds:read']);
    expect((await sb.call('GET', '/feeds', { key: regenerated })).status).toBe(200);
    await sb.dispose();

    for (const file of await readdir(dir)) {
      const bytes = (await readFile(join(dir, file))).toString('latin1');
      for (const plaintext of [key, regenerated]) {
        expect(bytes.includes(plaintext), file).toBe(false);
        expect(bytes.includes(plaintext.slice(4, 30)), file).toBe(false);
      }
    }
    const db = await Db.open(join(dir, 'sandbox.db'));
    try {
      const rows = await db.all<{ key_hash: string; last4: string }>('SELECT key_hash, last4 FROM api_keys WHERE guild_id = ?', [guildId]);
      expect(rows).toEqual([{ key_hash: hashApiKey(regenerated), last4: regenerated.slice(-4) }]);
    } finally {
      await db.close();
    }
  });

  test('uses a certificate supplied by path, and creates none in the data folder', async ({ makeDataDir, startSandbox }) => {
    const source = await startSandbox();
    const certDir = await makeDataDir();
    await copyFile(join(source.dataDir, 'cert.pem'), join(certDir, 'my-cert.pem'));
    await copyFile(join(source.dataDir, 'key.pem'), join(certDir, 'my-key.pem'));
    const dir = await makeDataDir();
    const sb = await startSandbox({ dataDir: dir, tls: { certFile: join(certDir, 'my-cert.pem'), keyFile: join(certDir, 'my-key.pem') } });
    expect(sb.caFile).toBe(join(certDir, 'my-cert.pem'));
    expect(sb.caPem).toBe(source.caPem);
    expect((await sb.call('GET', '/health')).status).toBe(200);
    expect(await readdir(dir)).not.toContain('cert.pem');
  });

  test('replaces an expired certificate in the data folder; keeps the private key private', async ({ makeDataDir, startSandbox }) => {
    const dir = await makeDataDir();
    const old = await generate([{ name: 'commonName', value: 'old' }], {
      keyType: 'ec',
      notBeforeDate: new Date(Date.now() - 3 * 86_400_000),
      notAfterDate: new Date(Date.now() - 86_400_000),
    });
    await writeFile(join(dir, 'cert.pem'), old.cert);
    await writeFile(join(dir, 'key.pem'), old.private);
    const sb = await startSandbox({ dataDir: dir });
    expect(sb.caPem).not.toBe(old.cert);
    expect((await sb.call('GET', '/health')).status).toBe(200);
    expect((await stat(join(dir, 'key.pem'))).mode & 0o777).toBe(0o600);
  });
});

describe('admin CLI', () => {
  function cli(dir: string) {
    return async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli([...args, '--data-dir', dir], { out: (l) => out.push(l), err: (l) => err.push(l) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
  }

  test('creates servers, generates keys with scopes, pauses and resumes feeds — seen at once by a running sandbox', async ({ makeDataDir, startSandbox }) => {
    const dir = await makeDataDir();
    const sb = await startSandbox({ dataDir: dir });
    const run = cli(dir);
    const guild = '1234567890123456789';

    expect((await run('server:create', guild, '--plan', 'server')).code).toBe(0);
    const generated = await run('key:generate', guild, '--scopes', 'feeds:read,feeds:write');
    expect(generated.code).toBe(0);
    const key = generated.out.split('\n').find((l) => l.startsWith('fbk_'));
    expect(key).toMatch(/^fbk_[0-9A-Za-z]{40}$/);
    expect((await sb.call('GET', '/feeds', { key })).status).toBe(200);
    expectErrorBody(await sb.call('GET', '/stats', { key }), 'missing_scope');

    const shown = await run('key:show', guild);
    expect(shown.out).toContain(key!.slice(-4));
    expect(shown.out).not.toContain(key!.slice(4, 30));
    expect(shown.out).toContain('feeds:read feeds:write');

    const created = await sb.call('POST', '/feeds', { key, body: { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] } });
    const feedId = (created.json as { id: number }).id;
    expect((await run('feed:pause', guild, String(feedId))).out).toContain('pausado');
    expect(((await sb.call('GET', '/feeds', { key })).json as { feeds: { estado: string }[] }).feeds[0]?.estado).toBe('pausado');
    expect((await run('feed:resume', guild, String(feedId))).out).toContain('activo');
    expect((await run('post:add', guild, String(feedId), '--tipo', 'reel')).code).toBe(0);
    const posts = (await sb.call('GET', `/feeds/${feedId}/posts?tipo=reel`, { key })).json as { posts: unknown[] };
    expect(posts.posts).toHaveLength(1);
    expect((await run('simulate', '--all')).out).toMatch(/forwarded [1-9]\d* post/);

    // Regenerating from the CLI invalidates the key in the running sandbox immediately.
    const again = await run('key:generate', guild, '--scopes', 'none');
    const newKey = again.out.split('\n').find((l) => l.startsWith('fbk_'));
    expectErrorBody(await sb.call('GET', '/feeds', { key }), 'invalid_api_key');
    expectErrorBody(await sb.call('GET', '/feeds', { key: newKey }), 'missing_scope');

    // Plans: a downgrade takes effect on the next request.
    expect((await run('server:plan', guild, 'free')).code).toBe(0);
    expectErrorBody(await sb.call('GET', '/feeds', { key: newKey }), 'plan_required');
    expect((await run('servers')).out).toContain(`${guild}  plan=free`);
    expect((await run('key:revoke', guild)).out).toBe('key revoked');
    expectErrorBody(await sb.call('GET', '/feeds', { key: newKey }), 'invalid_api_key');
  });

  test('rejects bad input with a message and a non-zero exit code', async ({ makeDataDir }) => {
    const run = cli(await makeDataDir());
    expect((await run('server:create', 'not-a-guild')).code).toBe(1);
    expect((await run('server:create', '1234567890123456789', '--plan', 'gold')).code).toBe(1);
    expect((await run('key:generate', '1234567890123456789')).err).toContain('create it first');
    await run('server:create', '1234567890123456789');
    const badScope = await run('key:generate', '1234567890123456789', '--scopes', 'feeds:read,admin');
    expect(badScope.code).toBe(1);
    expect(badScope.out).toBe('');
    expect((await run('feed:pause', '1234567890123456789', '42')).err).toContain('no feed 42');
    expect((await run('frobnicate')).code).toBe(1);
    expect((await run('--nope')).code).toBe(2);
    const help = await run('help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('key:generate');
  });

  test('runs as its own process (npm run sandbox:admin)', async ({ makeDataDir }) => {
    const result = await runCliProcess(['seed', '--seed', '3'], await makeDataDir());
    expect(result.out).toMatch(/seeded 5 feeds and \d+ posts/);
    expect(result.code).toBe(0);
  });
});

describe('npm run sandbox (demo)', () => {
  test('prints the URL, the CA file and a working full-scope demo key; writes it 0600; never logs it; a restart replaces it', async ({ makeDataDir }) => {
    const dir = await makeDataDir();
    const env = parseSandboxEnv({ SANDBOX_DATA_DIR: dir, SANDBOX_PORT: '0', SANDBOX_SIMULATE_MS: '0' });
    const { lines, logger } = captureLogs();
    const demo = await startDemoSandbox(env, logger);
    onTestFinished(() => demo.sandbox.close());
    const { sandbox, demoKey, banner } = demo;
    expect(banner).toContain(sandbox.url);
    expect(banner).toContain(sandbox.caFile);
    expect(banner).toContain(demoKey);
    expect(banner).toContain(`FEED_API_URL=${sandbox.url}`);
    // The bot's own CA setting: NODE_EXTRA_CA_CERTS would only be read when Node starts, not from .env.
    expect(banner).toContain(`FEED_API_CA_FILE=${sandbox.caFile}`);
    expect(banner).not.toMatch(/^\s*NODE_EXTRA_CA_CERTS=/m);
    const keyFile = join(dir, DEMO_KEY_FILE);
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(demoKey);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);

    const { Agent, request } = await import('undici');
    const agent = new Agent({ connect: { ca: sandbox.caPem } });
    try {
      for (const path of ['/feeds', '/stats']) {
        const res = await request(`${sandbox.url}${path}`, { dispatcher: agent, headers: { authorization: `Bearer ${demoKey}` } });
        expect(res.statusCode).toBe(200);
        const body = (await res.body.json()) as Record<string, unknown>;
        if (path === '/stats') expect(body.servidor).toBe(DEMO_GUILD_ID);
      }
    } finally {
      await agent.close();
    }
    await demo.sandbox.close();

    const restarted = await startDemoSandbox(env, logger);
    onTestFinished(() => restarted.sandbox.close());
    expect(restarted.demoKey).not.toBe(demoKey);
    const retry = new (await import('undici')).Agent({ connect: { ca: restarted.sandbox.caPem } });
    try {
      const old = await (await import('undici')).request(`${restarted.sandbox.url}/feeds`, { dispatcher: retry, headers: { authorization: `Bearer ${demoKey}` } });
      expect(old.statusCode).toBe(401);
      await old.body.dump();
    } finally {
      await retry.close();
    }

    const logs = lines.join('');
    expect(logs).toContain('sandbox listening');
    for (const secret of [demoKey, restarted.demoKey]) {
      expect(logs).not.toContain(secret.slice(4));
      expect(logs).not.toContain(hashApiKey(secret));
    }
  });

  test('starts with one command and prints the banner', async ({ makeDataDir }) => {
    const dir = await makeDataDir();
    const child = spawn(process.execPath, ['--conditions=@feedbot/source', '--import', 'tsx', 'src/main.ts'], {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, SANDBOX_DATA_DIR: dir, SANDBOX_PORT: '0', SANDBOX_SIMULATE_MS: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    onTestFinished(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await expect.poll(() => out, { timeout: 20_000, interval: 100 }).toContain('FEED_API_CA_FILE=');
    const url = /FEED_API_URL=(\S+)/.exec(out)?.[1];
    expect(/FEED_API_CA_FILE=(\S+)/.exec(out)?.[1]).toBe(join(dir, 'cert.pem'));
    const key = /demo API key\s+(fbk_\S+)/.exec(out)?.[1];
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toMatch(/^fbk_/);
    const { Agent, request } = await import('undici');
    const agent = new Agent({ connect: { ca: await readFile(join(dir, 'cert.pem'), 'utf8') } });
    try {
      const res = await request(`${url}/stats`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      await agent.close();
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
