/**
 * End to end, the ops listener of the real bot process (`npm start` with METRICS_PORT): health
 * and readiness, a scrape after a story that `promtool check metrics` accepts and that counts
 * what happened — and a real Prometheus server scraping the bot during a story, whose query API
 * returns the interaction counter. promtool and prometheus come from Debian's `prometheus`
 * package: skipped with a message when absent locally, a failure when absent in CI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, Stack, freePort } from '@feedbot/playground';
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { InteractionInput, InteractionSnapshot } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';
import { find, parseExposition, prometheusTool, promtoolCheck, sum } from '../ops/prom-text.js';
import { eventually } from './process-kit.js';

const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };
const member = { userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS };
const promtool = prometheusTool('promtool', 'promtool check metrics on the bot scrape');
const prometheus = prometheusTool('prometheus', 'the real Prometheus server scraping the bot');

let dir: string;
let stack: Stack;
let metricsUrl: string;


async function get(path: string): Promise<{ status: number; text: string; type: string | undefined }> {
  const res = await request(`${metricsUrl}${path}`);
  return { status: res.statusCode, text: await res.body.text(), type: res.headers['content-type'] as string | undefined };
}


const send = (input: InteractionInput): Promise<InteractionSnapshot> => stack.emulator.sendInteraction(input).waitForFinal({ timeoutMs: 10_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-metrics-'));
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}`;
  stack = await Stack.start({ dataDir: join(dir, 'stack'), logger: silentLogger(), botEnv: { METRICS_PORT: String(port) } });
  await stack.deployCommands();
  await stack.startBot();
}, 90_000);

afterAll(async () => {
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the ops listener of the real bot', () => {
  it('is alive, and ready once the shard is connected and the key store answers', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, text: '{"alive":true}' });
    const ready = await eventually('/readyz 200', 15_000, async () => {
      const r = await get('/readyz');
      return r.status === 200 ? r : undefined;
    });
    expect(JSON.parse(ready.text)).toEqual({ ready: true, shards: { '0': 'Ready' }, keyStore: 'ok', problems: [] });
    expect((await get('/nope')).status).toBe(404);
  });

  let storyScrape: string | undefined;

  it('after a story, the scrape counts interactions, API requests, the cache, the store and the gateway', async () => {
    // The story: no key yet, an admin sets one through the modal, lists, autocompletes, reads the stats.
    await send({ type: 'command', commandName: 'stats', ...member });
    const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', ...admin }).waitForAck();
    await stack.emulator.submitModal({ interactionId: opened.id, values: { key: stack.demoKey }, ...admin }).waitForFinal({ timeoutMs: 10_000 });
    await send({ type: 'command', commandName: 'feed', subcommand: 'list', ...member });
    const completed = await send({ type: 'autocomplete', commandName: 'feed', subcommand: 'delete', focused: 'id', options: { id: '' }, ...admin });
    expect(completed.ack?.type).toBe(8);
    await send({ type: 'command', commandName: 'stats', ...member });

    // An interaction is counted once its handler returned, which may be after the emulator saw the
    // answer: scrape until all six are counted (or fail with the last count), never once.
    let counted = 0;
    const scrape = await eventually('six interactions counted in /metrics', 15_000, async () => {
      const r = await get('/metrics');
      counted = r.status === 200 ? sum(parseExposition(r.text), 'feedbot_interactions_total') : -1;
      return counted >= 6 ? r : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; last count ${counted}`);
    });
    expect(scrape.status).toBe(200);
    expect(scrape.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const e = parseExposition(scrape.text);
    const count = (labels: Record<string, string>) => sum(e, 'feedbot_interactions_total', labels);
    expect(count({ kind: 'command', command: 'stats', subcommand: 'none', outcome: 'user_error' })).toBe(1);
    expect(count({ kind: 'command', command: 'apikey', subcommand: 'set', outcome: 'ok' })).toBe(1);
    expect(count({ kind: 'modal', command: 'apikey', subcommand: 'set', outcome: 'ok' })).toBe(1);
    expect(count({ kind: 'command', command: 'feed', subcommand: 'list', outcome: 'ok' })).toBe(1);
    expect(count({ kind: 'autocomplete', command: 'feed', subcommand: 'delete', outcome: 'ok' })).toBe(1);
    expect(count({ kind: 'command', command: 'stats', subcommand: 'none', outcome: 'ok' })).toBe(1);
    expect(sum(e, 'feedbot_interaction_ack_seconds_count')).toBe(6);
    expect(sum(e, 'feedbot_interaction_missed_deadlines_total')).toBe(0);
    expect(sum(e, 'feedbot_api_requests_total', { route: 'listFeeds', status: '200' })).toBeGreaterThanOrEqual(1);
    // /stats, and the key check behind the modal (which reads the stats too).
    expect(sum(e, 'feedbot_api_requests_total', { route: 'getStats', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(find(e, 'feedbot_api_remaining_budget_lowest')).toHaveLength(1);
    expect(sum(e, 'feedbot_feeds_cache_lookups_total', { use: 'autocomplete', result: 'hit' })).toBe(1);
    expect(sum(e, 'feedbot_key_store_operations_total', { op: 'set', outcome: 'ok' })).toBe(1);
    expect(find(e, 'feedbot_gateway_shard_status')).toEqual([{ name: 'feedbot_gateway_shard_status', labels: { shard: '0' }, value: 0 }]);
    expect(e.types.get('process_resident_memory_bytes')).toBe('gauge');
    // Nothing identifying: not the key, not the guild, not a user.
    for (const secretish of [stack.demoKey, stack.botToken, DEMO_GUILD_ID, ADMIN_USER_ID, MEMBER_USER_ID]) expect(scrape.text).not.toContain(secretish);
    storyScrape = scrape.text;
  }, 60_000);

  it.skipIf(promtool.skip)('that scrape passes `promtool check metrics`', async () => {
    expect(storyScrape, 'the story test did not leave a scrape').toBeDefined();
    const checked = await promtoolCheck(promtool.path(), storyScrape!);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  });

  it.skipIf(prometheus.skip)('a real Prometheus scrapes the bot during a story and its query API returns the interaction counter', async () => {
    const promDir = join(dir, 'prometheus');
    const promPort = await freePort();
    const target = new URL(metricsUrl).host;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      ['global:', '  scrape_interval: 1s', '  scrape_timeout: 1s', 'scrape_configs:', '  - job_name: feedbot', '    static_configs:', `      - targets: ['${target}']`, ''].join('\n'),
    );
    const server: ChildProcess = spawn(
      prometheus.path(),
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${promDir}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const stderr: string[] = [];
    server.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const exited = new Promise<void>((resolve) => server.once('close', () => resolve()));
    const api = `http://127.0.0.1:${promPort}`;
    try {
      await eventually(`prometheus ready (stderr: ${stderr.join('').slice(-500)})`, 30_000, async () => ((await request(`${api}/-/ready`)).statusCode === 200 ? true : undefined));
      // The story goes on while Prometheus scrapes.
      await send({ type: 'command', commandName: 'feed', subcommand: 'list', ...member });
      await send({ type: 'command', commandName: 'stats', ...member });
      const query = encodeURIComponent('sum(feedbot_interactions_total{command="feed",subcommand="list",outcome="ok"})');
      const value = await eventually('the interaction counter in the query API', 30_000, async () => {
        const res = await request(`${api}/api/v1/query?query=${query}`);
        const body = (await res.body.json()) as { status: string; data: { result: { value: [number, string] }[] } };
        const v = Number(body.data.result[0]?.value[1]);
        return body.status === 'success' && v >= 2 ? v : undefined;
      });
      expect(value).toBeGreaterThanOrEqual(2);
      const up = (await (await request(`${api}/api/v1/query?query=up`)).body.json()) as { data: { result: { metric: { instance: string }; value: [number, string] }[] } };
      expect(up.data.result).toEqual([expect.objectContaining({ metric: expect.objectContaining({ instance: target }), value: [expect.any(Number), '1'] })]);
    } finally {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }, 90_000);

  it('closes with the bot on SIGTERM; a METRICS_PORT in use stops the next start with one clear line', async () => {
    expect(await stack.bot!.stop()).toMatchObject({ code: 0 });
    await expect(request(`${metricsUrl}/healthz`)).rejects.toThrow();

    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      stack.env.METRICS_PORT = String((busy.address() as { port: number }).port);
      // A start under a loaded CI (two cores, the suite beside it) can take well over 30 s to reach its listeners.
      await expect(stack.startBot(75_000)).rejects.toThrow(/metrics listener: 127\.0\.0\.1:\d+ is already in use: choose another METRICS_PORT/);
      expect(await stack.bot!.exited).toMatchObject({ code: 1 });
    } finally {
      busy.close();
    }
  }, 120_000);
});
