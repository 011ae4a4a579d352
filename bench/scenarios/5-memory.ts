/**
 * Scenario 5 — memory. The real bot process (`src/index.ts`, as `npm start` runs it) logs in to
 * the Discord emulator serving 1, 1,000 and 10,000 guilds (2 text channels, a category and 2
 * roles each), with a SQLite key store holding one encrypted key per guild. After READY and a
 * settle time, a full GC runs in the child and its resident set (VmRSS) and heap are read. The
 * baseline is a bare discord.js client (Guilds intent, default caches) on the same emulator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateGuilds, makeBotToken, startEmulator } from '@feedbot/discord-emulator';
import { KeyStore } from '../../src/keys/store.js';
import { BENCH_SECRET, storedKey } from '../lib/bot.js';
import { REPO_ROOT, spawnMeasured, type ChildMemory } from '../lib/child.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { ratio, round } from '../lib/stats.js';
import { sleep, withTimeout } from '../lib/time.js';
import type { ScenarioContext } from './types.js';

const APP_ID = '1200000000000000001';
const SETTLE_MS = 3_000;

async function fillKeys(file: string, guildIds: string[]): Promise<void> {
  const store = await KeyStore.open({ databaseUrl: file, secret: BENCH_SECRET });
  try {
    // The store serialises writes per guild only, so a few at a time keeps SQLite busy.
    for (let i = 0; i < guildIds.length; i += 64) {
      await Promise.all(guildIds.slice(i, i + 64).map((id, k) => store.set(id, storedKey(`fbk_Memory${String(i + k).padStart(8, '0')}KeyMaterialxxxxxxxxxxxx`))));
    }
  } finally {
    await store.close();
  }
}

interface Point {
  guilds: number;
  bot: ChildMemory;
  baseline: ChildMemory;
  readyMs: { bot: number; baseline: number };
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const sizes = ctx.quick ? [1, 200] : [1, 1_000, 10_000];
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-memory-'));
  const points: Point[] = [];
  try {
    for (const n of sizes) {
      const guilds = generateGuilds(n);
      const dbFile = join(dir, `keys-${n}.sqlite`);
      ctx.log(`  ${n} guild(s): storing ${n} encrypted key(s)`);
      await fillKeys(dbFile, guilds.map((g) => g.id));
      const token = makeBotToken(APP_ID);
      const emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds });
      try {
        const measure = async (which: 'bot' | 'baseline') => {
          const t0 = performance.now();
          const child =
            which === 'bot'
              ? spawnMeasured({
                  entry: join(REPO_ROOT, 'src/index.ts'),
                  cwd: dir,
                  env: {
                    NODE_ENV: 'production',
                    DISCORD_TOKEN: token,
                    DISCORD_API_URL: emu.apiUrl,
                    // Never contacted before an interaction arrives.
                    FEED_API_URL: 'https://127.0.0.1:9/v1',
                    KEY_ENCRYPTION_SECRET: BENCH_SECRET.toString('base64'),
                    DATABASE_URL: dbFile,
                    LOG_LEVEL: 'info',
                    LOG_PRETTY: 'false',
                  },
                  readyWhen: (line) => line.includes('"msg":"ready"'),
                })
              : spawnMeasured({
                  entry: join(REPO_ROOT, 'bench/lib/bare-client.ts'),
                  cwd: dir,
                  env: { DISCORD_TOKEN: token, DISCORD_API_URL: emu.apiUrl },
                  readyWhen: (line) => line.includes('"msg":"ready"'),
                });
          try {
            await withTimeout(child.ready, 180_000, `${which} READY (${n} guilds)`).catch((error: unknown) => {
              throw new Error(`${String(error)}\n${child.output.slice(-10).join('\n')}`);
            });
            const readyMs = performance.now() - t0;
            await sleep(SETTLE_MS);
            return { memory: await child.memory(), readyMs };
          } finally {
            await child.stop();
          }
        };
        ctx.log(`  ${n} guild(s): feedbot`);
        const bot = await measure('bot');
        ctx.log(`  ${n} guild(s): bare discord.js client`);
        const baseline = await measure('baseline');
        points.push({ guilds: n, bot: bot.memory, baseline: baseline.memory, readyMs: { bot: round(bot.readyMs), baseline: round(baseline.readyMs) } });
      } finally {
        await emu.close();
      }
    }

    const first = points[0]!;
    const last = points.at(-1)!;
    const perGuild = (pick: (p: Point) => number) => (pick(last) - pick(first)) / (last.guilds - first.guilds);
    const kb = (bytes: number) => round(bytes / 1024, 2);
    const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
    const rssPerGuild = perGuild((p) => p.bot.rss);
    const baseRssPerGuild = perGuild((p) => p.baseline.rss);
    const heapPerGuild = perGuild((p) => p.bot.heapUsed);
    const baseHeapPerGuild = perGuild((p) => p.baseline.heapUsed);
    const metrics: Metric[] = points.map((p) => ({
      name: `RSS after READY, ${p.guilds} guild(s)`,
      unit: 'MB',
      value: mb(p.bot.rss),
      baseline: mb(p.baseline.rss),
      ratio: ratio(p.bot.rss, p.baseline.rss),
    }));
    metrics.push(
      {
        name: `RSS per extra guild (${first.guilds}→${last.guilds})`,
        unit: 'KB',
        value: kb(rssPerGuild),
        baseline: kb(baseRssPerGuild),
        ratio: ratio(rssPerGuild, baseRssPerGuild),
        // Goal: 200 MB across the shard processes at 100,000 servers.
        target: '≤ 2 KB',
        met: rssPerGuild <= 2048,
      },
      {
        name: `heap used per extra guild (${first.guilds}→${last.guilds})`,
        unit: 'KB',
        value: kb(heapPerGuild),
        baseline: kb(baseHeapPerGuild),
        ratio: ratio(heapPerGuild, baseHeapPerGuild),
      },
    );
    return {
      id: 5,
      key: 'memory',
      title: 'Memory',
      baseline: 'bare discord.js client (Guilds intent, default caches) logged in to the same emulator',
      params: { guilds: sizes, channelsPerGuild: 3, rolesPerGuild: 2, settleMs: SETTLE_MS, measuredAfter: 'full GC in the child (--expose-gc, IPC probe)' },
      metrics,
      details: {
        curve: points.map((p) => ({
          guilds: p.guilds,
          bot: { rssMb: mb(p.bot.rss), peakRssMb: mb(p.bot.peakRss), heapUsedMb: mb(p.bot.heapUsed), externalMb: mb(p.bot.external) },
          baseline: { rssMb: mb(p.baseline.rss), peakRssMb: mb(p.baseline.peakRss), heapUsedMb: mb(p.baseline.heapUsed), externalMb: mb(p.baseline.external) },
          readyMs: p.readyMs,
        })),
      },
      notes: points.map(
        (p) =>
          `${p.guilds} guild(s): feedbot RSS ${mb(p.bot.rss)} MB, heap ${mb(p.bot.heapUsed)} MB, READY after ${(p.readyMs.bot / 1000).toFixed(1)} s; bare client RSS ${mb(p.baseline.rss)} MB, heap ${mb(p.baseline.heapUsed)} MB.`,
      ),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
