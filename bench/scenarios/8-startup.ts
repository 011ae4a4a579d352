/**
 * Scenario 8 — start-up. The real bot process, started each of the ways it is started, logs in to
 * the Discord emulator (1 guild, an empty SQLite key store). Measured per run: spawn → the `ready`
 * log line, then, after a settle time, VmRSS of the bot process and of every process the command
 * started (no forced GC: what the operating system holds).
 *   compiled       `node --enable-source-maps dist/src/index.js`: the image's CMD. With
 *                  BENCH_PROD_DIR=<folder> it runs there, e.g. the production install that
 *                  `KEEP_APP_DIR=<folder> bash .ci/prod-steps.sh` leaves.
 *   tsx CLI        `tsx --conditions=@feedbot/source src/index.ts` (the baseline): what `npm start`
 *                  ran before; tsx's CLI runs the bot in a second node process.
 *   tsx loader     `node --conditions=@feedbot/source --import tsx src/index.ts`: one process; how
 *                  the demo and the end-to-end tests start the bot from source.
 *   npm start now / before: the first two behind npm, as `npm start` runs them now and before
 *                  (npm, then sh, then the command).
 * Runs rotate through the ways, so drift on the machine hits all of them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateGuilds, makeBotToken, startEmulator } from '@feedbot/discord-emulator';
import { BENCH_SECRET } from '../lib/bot.js';
import { REPO_ROOT } from '../lib/child.js';
import { spawnTimed, type TreeMemory } from '../lib/process-tree.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { ratio, round, summarize } from '../lib/stats.js';
import { sleep, withTimeout } from '../lib/time.js';
import { tsxUrl } from '../lib/tsx.js';
import type { ScenarioContext } from './types.js';

const APP_ID = '1200000000000000001';

type Way = 'compiled' | 'tsxCli' | 'tsxLoader' | 'npmNow' | 'npmBefore';
const LABEL: Record<Way, string> = { compiled: 'compiled', tsxCli: 'tsx CLI', tsxLoader: 'tsx loader', npmNow: 'npm start now', npmBefore: 'npm start before' };

function tsxCli(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string }).bin;
  return join(dirname(manifest), bin);
}

/** A node command line (without `node`) for each way that runs node itself. */
function nodeArgs(way: 'compiled' | 'tsxCli' | 'tsxLoader', compiledDir: string): string[] {
  const source = join(REPO_ROOT, 'src/index.ts');
  if (way === 'compiled') return ['--enable-source-maps', join(compiledDir, 'dist/src/index.js')];
  if (way === 'tsxCli') return [tsxCli(), '--conditions=@feedbot/source', source];
  return ['--conditions=@feedbot/source', '--import', tsxUrl('.'), source];
}

/**
 * A folder whose package.json `start` script is the given command line, for `npm start` as it is
 * now and as it was; `node` and `tsx` are found on PATH as npm scripts find them.
 */
function npmFolder(dir: string, name: string, script: string): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, private: true, type: 'module', scripts: { start: script } }));
  return folder;
}

/** The command line each way runs, as text: npm's `start` script, or node's arguments. */
function commandLine(way: Way, compiledDir: string): string {
  if (way === 'npmNow') return `node ${nodeArgs('compiled', compiledDir).join(' ')}`;
  if (way === 'npmBefore') return `tsx --conditions=@feedbot/source ${join(REPO_ROOT, 'src/index.ts')}`;
  return `node ${nodeArgs(way, compiledDir).join(' ')}`;
}

function commandFor(way: Way, compiledDir: string, dir: string): { command: string; args: string[]; cwd: string } {
  if (way === 'npmNow' || way === 'npmBefore') return { command: 'npm', args: ['start', '--silent'], cwd: npmFolder(dir, way, commandLine(way, compiledDir)) };
  // Not the repository: a .env there must not change what is measured.
  return { command: process.execPath, args: nodeArgs(way, compiledDir), cwd: dir };
}

interface Run {
  readyMs: number;
  memory: TreeMemory;
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const runs = ctx.overrides?.runs ?? (ctx.quick ? 1 : 7);
  const settleMs = ctx.quick ? 300 : 2_000;
  const prodDir = process.env.BENCH_PROD_DIR ? resolve(process.env.BENCH_PROD_DIR) : undefined;
  const compiledDir = prodDir ?? REPO_ROOT;
  if (!prodDir) {
    ctx.log('  npm run build (tsc -b tsconfig.build.json)');
    execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
  }

  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-startup-'));
  const token = makeBotToken(APP_ID);
  // The bot logs in again every few seconds here: Discord's 5-second identify window would add
  // its own wait to every run after the first, and this measures the process, not that limit.
  const emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: generateGuilds(1), identifyWindowMs: 0 });
  const results: Record<Way, Run[]> = { compiled: [], tsxCli: [], tsxLoader: [], npmNow: [], npmBefore: [] };
  const ways = Object.keys(results) as Way[];
  try {
    const once = async (way: Way): Promise<Run> => {
      const child = spawnTimed({
        ...commandFor(way, compiledDir, dir),
        env: {
          // npm start before: tsx from this repository, as npm put it on PATH there.
          PATH: `${join(REPO_ROOT, 'node_modules/.bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
          npm_config_update_notifier: 'false',
          NODE_ENV: 'production',
          DISCORD_TOKEN: token,
          DISCORD_API_URL: emu.apiUrl,
          // Never contacted before an interaction arrives.
          FEED_API_URL: 'https://127.0.0.1:9/v1',
          KEY_ENCRYPTION_SECRET: BENCH_SECRET.toString('base64'),
          DATABASE_URL: join(dir, 'keys.sqlite'),
          LOG_LEVEL: 'info',
          LOG_PRETTY: 'false',
        },
        readyWhen: (line) => line.includes('"msg":"ready"'),
      });
      try {
        const readyMs = await withTimeout(child.ready, 60_000, `${LABEL[way]} READY`).catch((error: unknown) => {
          throw new Error(`${String(error)}\n${child.output.slice(-10).join('\n')}`);
        });
        await sleep(settleMs);
        return { readyMs, memory: child.memory() };
      } finally {
        await child.stop();
      }
    };
    ctx.log(`  ${runs} start(s) each way, rotating: ${ways.map((w) => LABEL[w]).join(', ')}${prodDir ? ` (compiled from ${prodDir})` : ''}`);
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < ways.length; k++) {
        const way = ways[(i + k) % ways.length]!;
        results[way].push(await once(way));
      }
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (way: Way, pick: (r: Run) => number) => summarize(results[way].map(pick)).p50;
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const ready = (way: Way) => median(way, (r) => r.readyMs);
  const leaf = (way: Way) => median(way, (r) => r.memory.leafRss);
  const all = (way: Way) => median(way, (r) => r.memory.treeRss);
  const row = (name: string, unit: string, value: number, baseline: number, scale: (v: number) => number, goal?: number): Metric => {
    const r = ratio(value, baseline);
    return {
      name,
      unit,
      value: scale(value),
      baseline: scale(baseline),
      ratio: r,
      ...(goal === undefined ? {} : { target: `≤ ${goal}× tsx CLI`, met: r === null ? null : r <= goal }),
    };
  };
  const ms = (v: number) => round(v, 0);
  const processes = (way: Way) => results[way][0]?.memory.processes ?? '?';
  const where = prodDir ? 'production install' : 'checkout';
  return {
    id: 8,
    key: 'startup',
    title: 'Start-up',
    baseline: 'the same bot from TypeScript through tsx’s CLI, as `npm start` ran it before, with and without npm in front (same emulator, same guild, same machine)',
    params: { runs, settleMs, guilds: 1, compiledFrom: where, measured: 'spawn → "ready" log line; VmRSS from /proc after the settle time, no forced GC' },
    metrics: [
      // Goal: what a configuration does not use is loaded only when it is used.
      row('READY after spawn, median: compiled vs tsx CLI', 'ms', ready('compiled'), ready('tsxCli'), ms, 0.5),
      row('READY after spawn, median: npm start now vs before', 'ms', ready('npmNow'), ready('npmBefore'), ms),
      row('READY after spawn, median: tsx loader vs tsx CLI', 'ms', ready('tsxLoader'), ready('tsxCli'), ms),
      row('RSS at READY, bot process: compiled vs tsx CLI', 'MB', leaf('compiled'), leaf('tsxCli'), mb),
      row('RSS at READY, all processes: compiled vs tsx CLI', 'MB', all('compiled'), all('tsxCli'), mb),
      row('RSS at READY, all processes: npm start now vs before', 'MB', all('npmNow'), all('npmBefore'), mb),
      row('RSS at READY, all processes: tsx loader vs tsx CLI', 'MB', all('tsxLoader'), all('tsxCli'), mb),
    ],
    details: Object.fromEntries(
      ways.map((way) => [
        way,
        {
          command: `${way.startsWith('npm') ? 'npm start → ' : ''}${commandLine(way, compiledDir).replace(pathToFileURL(REPO_ROOT).href, '').replaceAll(REPO_ROOT, '')}`,
          readyMs: results[way].map((r) => ms(r.readyMs)),
          leafRssMb: results[way].map((r) => mb(r.memory.leafRss)),
          treeRssMb: results[way].map((r) => mb(r.memory.treeRss)),
          processes: results[way][0]?.memory.processes,
        },
      ]),
    ),
    notes: [
      `Medians of ${runs} start(s) each, compiled from the ${where}: READY after ${ms(ready('compiled'))} ms compiled, ${ms(ready('tsxCli'))} ms through tsx's CLI, ${ms(ready('tsxLoader'))} ms with tsx's loader in one process.`,
      `Resident memory at READY: compiled ${mb(all('compiled'))} MB in 1 process; tsx's CLI ${mb(all('tsxCli'))} MB in ${processes('tsxCli')} (the bot itself ${mb(leaf('tsxCli'))} MB); tsx's loader ${mb(all('tsxLoader'))} MB in 1.`,
      `npm start: now READY after ${ms(ready('npmNow'))} ms with ${mb(all('npmNow'))} MB in ${processes('npmNow')} processes; before ${ms(ready('npmBefore'))} ms with ${mb(all('npmBefore'))} MB in ${processes('npmBefore')}.`,
    ],
    durationMs: Math.round(performance.now() - started),
  };
}
