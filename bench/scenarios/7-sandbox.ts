/**
 * Scenario 7 — sandbox. Authenticated `GET /feeds` on the sandbox over HTTPS (front door, key
 * lookup, fixed-window rate limiter with a bench key allowed 10^9 requests per minute, SQLite,
 * response validation), against a bare fastify route over HTTPS with the same certificate
 * sending the same body. Both servers run in one worker thread; autocannon runs in a child
 * process, so on two cores the load generator and the server each have one. The two targets
 * alternate in short rounds so drift in the machine hits both. A diagnostic run on the sandbox's
 * public `GET /health` (same front door, TLS and fastify hooks; no key lookup, no database)
 * separates the cost of the framework path from that of the authenticated route.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { REPO_ROOT } from '../lib/child.js';
import { tsxUrl } from '../lib/tsx.js';
import type { ScenarioResult } from '../lib/report.js';
import { startBenchSandbox } from '../lib/sandbox.js';
import { ratio, round } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

interface LoadResult {
  rps: number;
  total: number;
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  ok: number;
  statuses: Record<string, number>;
}

function load(url: string, apiKey: string | undefined, connections: number, durationSec: number): Promise<LoadResult> {
  const options = JSON.stringify({ url, connections, durationSec, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@feedbot/source', '--import', tsxUrl('.'), join(REPO_ROOT, 'bench/lib/load.ts'), options], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${err.slice(-500)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as LoadResult);
      } catch {
        reject(new Error(`autocannon printed no result: ${out.slice(-300)} ${err.slice(-300)}`));
      }
    });
  });
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const rounds = ctx.quick ? 1 : 3;
  const durationSec = ctx.quick ? 2 : 8;
  const connections = 16;
  const sandbox = await startBenchSandbox({ countRequests: false });
  try {
    const guild = await sandbox.guild({ feeds: 6, rateLimit: 1_000_000_000, scopes: ['feeds:read'] });
    const agent = sandbox.agent();
    const first = await request(`${sandbox.url}/feeds`, { dispatcher: agent, headers: { authorization: `Bearer ${guild.key}` } });
    const body = await first.body.text();
    if (first.statusCode !== 200) throw new Error(`GET /feeds answered ${first.statusCode}: ${body.slice(0, 200)}`);
    if (first.headers['x-ratelimit-remaining'] === undefined) throw new Error('GET /feeds sent no rate-limit headers: is the limiter on?');
    const bareUrl = await sandbox.bare(body);

    ctx.log(`  warm-up: 2 s each`);
    await load(`${sandbox.url}/feeds`, guild.key, connections, 2);
    await load(`${bareUrl}/feeds`, undefined, connections, 2);

    const runs: { sandbox: LoadResult[]; bare: LoadResult[] } = { sandbox: [], bare: [] };
    for (let r = 0; r < rounds; r++) {
      ctx.log(`  round ${r + 1}/${rounds}: ${durationSec} s each, ${connections} connections`);
      runs.sandbox.push(await load(`${sandbox.url}/feeds`, guild.key, connections, durationSec));
      runs.bare.push(await load(`${bareUrl}/feeds`, undefined, connections, durationSec));
    }
    ctx.log(`  diagnostic: GET /health on the sandbox, ${durationSec} s`);
    const health = await load(`${sandbox.url}/health`, undefined, connections, durationSec);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const sRps = round(mean(runs.sandbox.map((x) => x.rps)));
    const bRps = round(mean(runs.bare.map((x) => x.rps)));
    const sP99 = median(runs.sandbox.map((x) => x.latency.p99));
    const bP99 = median(runs.bare.map((x) => x.latency.p99));
    const bad = runs.sandbox.reduce((n, x) => n + x.non2xx + x.errors + x.timeouts, 0);
    if (bad > 0) throw new Error(`the sandbox answered ${bad} requests with an error during the run: ${JSON.stringify(runs.sandbox.map((x) => x.statuses))}`);
    const rpsRatio = ratio(sRps, bRps);
    return {
      id: 7,
      key: 'sandbox',
      title: 'Sandbox',
      baseline: 'bare fastify route over HTTPS, same certificate, same worker thread, sending the same body',
      params: { route: 'GET /feeds (6 feeds)', connections, rounds, secondsPerRound: durationSec, loadGenerator: 'autocannon 8 (child process)', rateLimit: 'on, bench key limit 10^9/min' },
      metrics: [
        {
          name: 'requests per second',
          unit: '/s',
          value: sRps,
          baseline: bRps,
          ratio: rpsRatio,
          target: '≥ 0.5× baseline',
          met: rpsRatio === null ? null : rpsRatio >= 0.5,
        },
        { name: 'p99 latency', unit: 'ms', value: sP99, baseline: bP99, ratio: ratio(sP99, bP99) },
        { name: 'p50 latency', unit: 'ms', value: median(runs.sandbox.map((x) => x.latency.p50)), baseline: median(runs.bare.map((x) => x.latency.p50)) },
      ],
      details: {
        rounds: {
          sandbox: runs.sandbox.map((x) => ({ rps: round(x.rps), p50: x.latency.p50, p99: x.latency.p99, requests: x.total })),
          bare: runs.bare.map((x) => ({ rps: round(x.rps), p50: x.latency.p50, p99: x.latency.p99, requests: x.total })),
        },
        diagnostics: {
          sandboxPublicHealthRoute: { rps: round(health.rps), p50: health.latency.p50, p99: health.latency.p99, statuses: health.statuses },
        },
      },
      notes: [
        `Diagnostic: the sandbox's public GET /health (same front door, TLS and hooks; no key lookup, no database) served ${round(health.rps)} requests/s, p99 ${health.latency.p99} ms.`,
        'autocannon reports latency in whole milliseconds.',
      ],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await sandbox.close();
  }
}
