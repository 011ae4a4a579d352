/**
 * Scenario 9's unit of measurement: one group of processes that together run every shard of one
 * bot, started at the same moment against a fresh Discord emulator (so no identify bucket, session
 * or session-start count is left over from the group before). Measured: spawn → each process's
 * `ready` line, spawn → the emulator's last `guilds_sent`, the IDENTIFYs it accepted and refused
 * with op 9, then each process's resident memory after a settle time and a full GC.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { makeBotToken, startEmulator, type EmulatedGuild, type GatewayEvent } from '@feedbot/discord-emulator';
import { formatShardIds } from '../../src/shard-ids.js';
import { BENCH_SECRET } from './bot.js';
import { REPO_ROOT, spawnMeasured, type ChildMemory, type MeasuredChild } from './child.js';
import { sleep, withTimeout } from './time.js';

const APP_ID = '1200000000000000001';

/** Who runs the shards: the real bot (`src/index.ts`) or the bare discord.js client. */
export type Side = 'bot' | 'baseline';

/**
 * How the shards are split between processes.
 *   aligned     process k owns whole identify buckets (`shard_id % max_concurrency`): with 16
 *               buckets and 4 processes, buckets 4k..4k+3, i.e. `0-3,16-19,32-35` for k = 0.
 *               No two processes ever identify in the same bucket.
 *   contiguous  process k owns the k-th run of consecutive ids (`0-11`, `12-23`, …): every
 *               bucket is shared by several processes, whose identify throttles know nothing
 *               of each other.
 */
export type Layout = 'aligned' | 'contiguous';

export interface GroupShape {
  processes: number;
  shardCount: number;
  maxConcurrency: number;
}

export function shardLayout(layout: Layout, shape: GroupShape): number[][] {
  const { processes, shardCount, maxConcurrency } = shape;
  const owner = (id: number) =>
    layout === 'contiguous'
      ? Math.floor((id * processes) / shardCount)
      : // The buckets in use (fewer than max_concurrency when there are fewer shards), split in runs.
        Math.floor(((id % maxConcurrency) * processes) / Math.min(maxConcurrency, shardCount));
  const ranges: number[][] = Array.from({ length: processes }, () => []);
  for (let id = 0; id < shardCount; id++) ranges[owner(id)]!.push(id);
  return ranges;
}

export interface ProcessFigures {
  shardIds: string;
  /** Guilds on its shards (`(guild_id >> 22) % shard_count`), what it holds once ready. */
  guilds: number;
  /** Guilds its `ready` line reported. */
  guildsAtReady: number;
  readyMs: number;
  memory: ChildMemory;
}

export interface GroupRun {
  side: Side;
  layout: Layout;
  /** Spawn of the processes → the last one's `ready` line. */
  allReadyMs: number;
  /** Spawn → the emulator has sent the GUILD_CREATEs of every shard. */
  allSentMs: number;
  /** IDENTIFYs the emulator accepted, and refused with op 9 for their bucket's identify window. */
  identifies: number;
  rateLimited: number;
  /** Spawn → the first gateway connection (how long the processes took to start and log in). */
  firstConnectMs: number;
  /** Spawn → each accepted IDENTIFY, in order: the identify waves. */
  identifyAtMs: number[];
  /** One-minute load average of the machine when the group started. */
  load: number;
  processes: ProcessFigures[];
}

export interface GroupOptions extends GroupShape {
  side: Side;
  layout: Layout;
  guilds: EmulatedGuild[];
  /** Guilds of each shard, by shard id. */
  guildsPerShard: number[];
  identifyWindowMs: number;
  settleMs: number;
  /** Where each process's SQLite key store goes. */
  dir: string;
  timeoutMs: number;
}

function spawnSide(side: Side, k: number, shardIds: string, opts: GroupOptions, token: string, apiUrl: string): MeasuredChild {
  const sharding = { SHARD_COUNT: String(opts.shardCount), SHARD_IDS: shardIds };
  const readyWhen = (line: string) => line.includes('"msg":"ready"');
  if (side === 'baseline') {
    return spawnMeasured({ entry: join(REPO_ROOT, 'bench/lib/bare-client.ts'), cwd: opts.dir, env: { DISCORD_TOKEN: token, DISCORD_API_URL: apiUrl, ...sharding }, readyWhen });
  }
  return spawnMeasured({
    entry: join(REPO_ROOT, 'src/index.ts'),
    cwd: opts.dir,
    env: {
      NODE_ENV: 'production',
      DISCORD_TOKEN: token,
      DISCORD_API_URL: apiUrl,
      // Never contacted before an interaction arrives.
      FEED_API_URL: 'https://127.0.0.1:9/v1',
      KEY_ENCRYPTION_SECRET: BENCH_SECRET.toString('base64'),
      DATABASE_URL: join(opts.dir, `keys-${opts.layout}-${k}.sqlite`),
      LOG_LEVEL: 'info',
      LOG_PRETTY: 'false',
      ...sharding,
    },
    readyWhen,
  });
}

/** The `guilds` field of a process's `ready` line (the bot's and the bare client's alike). */
function guildsOf(lines: readonly string[]): number {
  const line = lines.find((l) => l.includes('"msg":"ready"'));
  return line ? Number((JSON.parse(line) as { guilds?: number }).guilds ?? NaN) : NaN;
}

export async function runGroup(opts: GroupOptions): Promise<GroupRun> {
  const token = makeBotToken(APP_ID);
  const emu = await startEmulator({
    applicationId: APP_ID,
    botToken: token,
    guilds: opts.guilds,
    shards: opts.shardCount,
    maxConcurrency: opts.maxConcurrency,
    identifyWindowMs: opts.identifyWindowMs,
  });
  const ranges = shardLayout(opts.layout, opts).map((ids) => ({ ids, text: formatShardIds(ids) }));
  const sentAt = new Map<number, number>();
  const identifyAtMs: number[] = [];
  let firstConnectMs = NaN;
  let rateLimited = 0;
  let t0 = performance.now();
  const onGateway = (event: GatewayEvent) => {
    if (event.type === 'connect' && Number.isNaN(firstConnectMs)) firstConnectMs = performance.now() - t0;
    else if (event.type === 'identify') identifyAtMs.push(performance.now() - t0);
    else if (event.type === 'invalid_session' && event.detail === 'identify_rate_limited') rateLimited++;
    else if (event.type === 'guilds_sent' && event.shard && !sentAt.has(event.shard[0])) sentAt.set(event.shard[0], performance.now() - t0);
  };
  emu.events.on('gateway', onGateway);
  const load = loadavg()[0]!;
  const children: MeasuredChild[] = [];
  try {
    t0 = performance.now();
    for (const [k, range] of ranges.entries()) children.push(spawnSide(opts.side, k, range.text, opts, token, emu.apiUrl));
    const readyMs = await withTimeout(
      Promise.all(children.map((c) => c.ready.then(() => performance.now() - t0))),
      opts.timeoutMs,
      `${opts.side} group READY (${opts.layout})`,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${children.map((c, k) => `process ${k}: ${c.output.slice(-5).join('\n')}`).join('\n')}`);
    });
    // Ready means every shard has its guilds, so the emulator has sent them all by now.
    await emu.waitForReady({ shardCount: opts.shardCount, timeoutMs: 30_000 });
    await sleep(opts.settleMs);
    const memory = await Promise.all(children.map((c) => c.memory()));
    return {
      side: opts.side,
      layout: opts.layout,
      allReadyMs: Math.max(...readyMs),
      allSentMs: Math.max(...sentAt.values()),
      identifies: identifyAtMs.length,
      rateLimited,
      firstConnectMs,
      identifyAtMs,
      load,
      processes: ranges.map((range, k) => ({
        shardIds: range.text,
        guilds: range.ids.reduce((sum, id) => sum + (opts.guildsPerShard[id] ?? 0), 0),
        guildsAtReady: guildsOf(children[k]!.output),
        readyMs: readyMs[k]!,
        memory: memory[k]!,
      })),
    };
  } finally {
    emu.events.off('gateway', onGateway);
    await Promise.all(children.map((c) => c.stop()));
    await emu.close();
  }
}
