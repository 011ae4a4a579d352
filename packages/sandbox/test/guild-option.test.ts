/**
 * `npm run sandbox -- --guild <id>`: the path to the sandbox from a real Discord server. The
 * server is created in the sandbox (plan `server`), the banner prints a full-scope key for it that
 * the API accepts for that server (what `/apikey set` checks: the key works, has every scope, and
 * `/stats` names that server), and the banner is the first thing printed, before any log line.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { describe, expect, onTestFinished, test } from 'vitest';
import { parseSandboxArgs } from '../src/main-args.js';
import { tempDir } from './helpers.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GUILD = '998877665544332211';

describe('npm run sandbox -- --guild <id>', () => {
  test('arguments: --guild takes a Discord id; anything else is refused with the usage', () => {
    expect(parseSandboxArgs([])).toEqual({});
    expect(parseSandboxArgs(['--guild', GUILD])).toEqual({ guild: GUILD });
    expect(parseSandboxArgs([`--guild=${GUILD}`])).toEqual({ guild: GUILD });
    expect(() => parseSandboxArgs(['--guild', 'my-server'])).toThrow(/--guild.*Discord id/);
    expect(() => parseSandboxArgs(['--guild'])).toThrow(/--guild/);
    expect(() => parseSandboxArgs(['--frobnicate'])).toThrow(/usage: npm run sandbox/);
    expect(parseSandboxArgs(['--help'])).toEqual({ help: true });
  });

  test('creates that server, prints a key the API accepts for it, banner first', async () => {
    const dir = await tempDir();
    // As documented, through npm; its own process group, so the whole tree is stopped after.
    const child = spawn('npm', ['run', '-s', 'sandbox', '--', '--guild', GUILD], {
      cwd: REPO_ROOT,
      detached: true,
      env: { ...process.env, SANDBOX_DATA_DIR: dir, SANDBOX_PORT: '0', SANDBOX_SIMULATE_MS: '0', LOG_LEVEL: 'info', LOG_PRETTY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    onTestFinished(async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await expect.poll(() => (/"msg":"sandbox listening"/.test(out) ? out : err || out), { timeout: 30_000, interval: 100 }).toMatch(/"msg":"sandbox listening"/);

    // The banner first: nothing but blank lines before it, and every log line after its end.
    const bannerStart = out.indexOf('feed API sandbox');
    const bannerEnd = out.indexOf('Admin: npm run sandbox:admin');
    expect(bannerStart).toBeGreaterThan(-1);
    expect(out.slice(0, bannerStart).trim()).toBe('');
    expect(out.indexOf('{"level"')).toBeGreaterThan(bannerEnd);

    const url = /FEED_API_URL=(\S+)/.exec(out)?.[1];
    const key = new RegExp(`key for server ${GUILD}\\s+(fbk_\\S+)`).exec(out)?.[1];
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toMatch(/^fbk_/);
    // The key is printed, never logged.
    expect(out.slice(bannerEnd)).not.toContain(key!.slice(4));

    const agent = new Agent({ connect: { ca: await readFile(join(dir, 'cert.pem'), 'utf8') } });
    try {
      const stats = await request(`${url}/stats`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } });
      expect(stats.statusCode).toBe(200);
      expect(((await stats.body.json()) as { servidor: string }).servidor).toBe(GUILD);
      const feeds = await request(`${url}/feeds`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } });
      expect(feeds.statusCode).toBe(200);
      await feeds.body.dump();
    } finally {
      await agent.close();
    }
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  });
});
