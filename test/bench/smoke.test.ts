/**
 * Smoke test of the benchmark harness (`npm run bench`): scenario 2 at a tiny size, end to end
 * (sandbox worker over HTTPS, the real bot, the naive baseline, the sandbox's own request count),
 * scenario 9 with two processes of each side on the emulator, and scenario 10 with a few hundred
 * interactions over HTTP and over the gateway, and a short storm on 3 replicas behind nginx.
 * It checks what is counted, never how fast anything was.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../bench/scenarios/2-autocomplete-storm.js';
import { run as run9 } from '../../bench/scenarios/9-sharded.js';
import { run as run10 } from '../../bench/scenarios/10-http.js';
import { missingNginx, serverBinariesMissing } from '@feedbot/playground';
import { shardLayout } from '../../bench/lib/shard-group.js';
import { formatShardIds } from '../../src/shard-ids.js';

describe('bench scenario 2 (autocomplete storm), tiny', () => {
  it('counts upstream requests on both sides and reports every metric with its baseline', async () => {
    const result = await run({ quick: true, log: () => undefined, overrides: { count: 24, windowMs: 1_500, warmup: 2 } });
    expect(result.error).toBeUndefined();
    const metric = (name: string) => result.metrics.find((m) => m.name === name);
    // The bot fills its per-guild cache once and answers every other keystroke from it.
    expect(metric('upstream requests')).toMatchObject({ value: 1, baseline: 24, met: true });
    // Every query matches a feed: an empty answer would mean the list was not had.
    expect(metric('answers without choices')).toMatchObject({ value: 0, baseline: 0 });
    const p99 = metric('p99 dispatch→answer');
    expect(typeof p99?.value).toBe('number');
    expect(typeof p99?.baseline).toBe('number');
    expect(result.details.upstreamByStatus).toEqual({ bot: { '200': 1 }, naive: { '200': 24 } });
  }, 20_000);
});

describe('bench scenario 9 (sharded start-up), tiny', () => {
  it('splits shards between processes by whole identify buckets, or in contiguous runs', () => {
    const shape = { processes: 4, shardCount: 48, maxConcurrency: 16 };
    expect(shardLayout('aligned', shape).map(formatShardIds)).toEqual(['0-3,16-19,32-35', '4-7,20-23,36-39', '8-11,24-27,40-43', '12-15,28-31,44-47']);
    expect(shardLayout('contiguous', shape).map(formatShardIds)).toEqual(['0-11', '12-23', '24-35', '36-47']);
    // Fewer shards than buckets: the buckets in use are split, so no process is left empty.
    expect(shardLayout('aligned', { processes: 2, shardCount: 4, maxConcurrency: 16 })).toEqual([[0, 1], [2, 3]]);
  });

  it('starts each group of processes, counts their guilds and identifies, and reports every metric with its baseline', async () => {
    const result = await run9({ quick: true, log: () => undefined, overrides: { guilds: 200, processes: 2, shardCount: 4, rounds: 1, contiguous: 0, settleMs: 200 } });
    expect(result.error).toBeUndefined();
    const runs = result.details.runs as { side: string; identifies: number; rateLimited: number; processes: { guilds: number; guildsAtReady: number }[] }[];
    expect(runs.map((r) => r.side).sort()).toEqual(['baseline', 'bot']);
    for (const r of runs) {
      // One IDENTIFY per shard: two processes that own different buckets never get op 9.
      expect(r).toMatchObject({ identifies: 4, rateLimited: 0 });
      expect(r.processes.map((p) => p.guildsAtReady)).toEqual(r.processes.map((p) => p.guilds));
      expect(r.processes.reduce((sum, p) => sum + p.guilds, 0)).toBe(200);
    }
    for (const m of result.metrics) {
      expect(typeof m.value, m.name).toBe('number');
      expect(typeof m.baseline, m.name).toBe('number');
    }
    expect(result.metrics.find((m) => m.name === 'RSS per guild held, bucket-aligned')).toMatchObject({ unit: 'KB', target: '≤ baseline' });
  }, 30_000);
});

describe('bench scenario 10 (HTTP interactions), tiny', () => {
  const missing = missingNginx() ?? serverBinariesMissing('redis');
  it.skipIf(missing)('answers every interaction in both transports and counts the storm upstream on replicas and on one', async () => {
    const result = await run10({ quick: true, log: () => undefined, overrides: { memoryGuilds: 0, perRound: 100, rounds: 1, deliveries: 10, warmup: 2, count: 24, windowMs: 1_500 } });
    expect(result.error).toBeUndefined();
    const throughput = result.details.throughput as Record<'http' | 'gateway', { answered: number; failed: number }[]>;
    // Every signed POST verified and answered with choices; every gateway dispatch acknowledged.
    expect(throughput.http).toMatchObject([{ answered: 100, failed: 0 }]);
    expect(throughput.gateway).toMatchObject([{ answered: 100, failed: 0 }]);
    const metric = (prefix: string) => result.metrics.find((m) => m.name.startsWith(prefix));
    expect(typeof metric('interactions per CPU-second')?.value).toBe('number');
    expect(typeof metric('interactions per CPU-second')?.baseline).toBe('number');
    expect(metric('RSS per extra guild')?.name).toContain('skipped');
    expect(typeof metric('p50 delivery→answer')?.value).toBe('number');
    expect((result.details.latency as { notOk: unknown }).notOk).toEqual({ viaNginx: 0, direct: 0 });
    // The replicas share one fill through Redis: the feed API sees what one process would cost it
    // (one fill; two when a loaded machine makes a fill outlive its lease, never one per replica).
    const storm = metric('storm: upstream GET /feeds')!;
    expect(storm.baseline).toBe(1);
    expect(storm.value).toBeGreaterThanOrEqual(1);
    expect(storm.value).toBeLessThanOrEqual(2);
    expect(metric('storm: answers without choices')).toMatchObject({ value: 0, baseline: 0 });
    const byStatus = (result.details.storm as { upstreamByStatus: { replicas: Record<string, number>; single: Record<string, number> } }).upstreamByStatus;
    expect(Object.keys(byStatus.replicas)).toEqual(['200']);
    expect(byStatus.replicas['200']).toBe(storm.value);
    expect(byStatus.single).toEqual({ '200': 1 });
  }, 30_000);
});
