/**
 * The manager's ops over IPC: HostOps asks shard processes (here, in-memory channels wired to the
 * real answerManager and real BotMetrics registries) for readiness and metrics.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BotMetrics } from '../../src/ops/metrics.js';
import type { Readiness } from '../../src/ops/readiness.js';
import { HostOps, type ShardProcess } from '../../src/sharding/host-ops.js';
import { answerManager } from '../../src/sharding/ipc.js';

interface FakeShard extends ShardProcess {
  process: { pid: number; exitCode: number | null; signalCode: string | null } | null;
}

/** A shard process whose IPC channel is an in-memory pair; `answers` false leaves questions unanswered. */
function shardProcess(id: number, readiness: Readiness, answers = true): { shard: FakeShard; metrics: BotMetrics } {
  const toManager = new EventEmitter();
  const child = Object.assign(new EventEmitter(), {
    connected: true,
    send: (message: unknown) => toManager.emit('message', message),
  });
  const metrics = new BotMetrics({ defaultMetrics: false });
  metrics.registry.setDefaultLabels({ shard_process: String(id) });
  if (answers) answerManager({ readiness: async () => readiness, metrics: () => metrics.registry.getMetricsAsJSON() }, child as unknown as NodeJS.Process);
  const shard: FakeShard = {
    id,
    process: { pid: 1000 + id, exitCode: null, signalCode: null },
    send: async (message) => void setImmediate(() => child.emit('message', message)),
    on: (event, listener) => toManager.on(event, listener),
    off: (event, listener) => toManager.off(event, listener),
  };
  return { shard, metrics };
}

const ready = (id: number): Readiness => ({ ready: true, shards: { [id]: 'Ready' }, keyStore: 'ok', problems: [] });

describe('HostOps', () => {
  it('is ready when every shard process is, and merges their metrics with a shard_process label', async () => {
    const a = shardProcess(0, ready(0));
    const b = shardProcess(1, ready(1));
    a.metrics.onInteraction({ kind: 'command', command: 'stats', subcommand: '-', outcome: 'ok', latencyMs: 10, ackLatencyMs: 5, deferred: false, missedDeadline: false } as never);
    b.metrics.onInteraction({ kind: 'command', command: 'stats', subcommand: '-', outcome: 'ok', latencyMs: 10, ackLatencyMs: 5, deferred: false, missedDeadline: false } as never);
    b.metrics.onInteraction({ kind: 'command', command: 'stats', subcommand: '-', outcome: 'ok', latencyMs: 10, ackLatencyMs: 5, deferred: false, missedDeadline: false } as never);
    const shards = new Map([a, b].map((p) => [p.shard.id, p.shard]));
    const host = new HostOps({ ids: [0, 1], shard: (id) => shards.get(id), stopping: () => false });

    expect(await host.readiness()).toEqual({ ready: true, shards: { '0': 'Ready', '1': 'Ready' }, keyStore: 'ok', problems: [] });
    host.countRestart(1);
    const { body } = await host.scrape();
    expect(body).toMatch(/feedbot_interactions_total\{kind="command",command="stats",subcommand="-",outcome="ok",shard_process="0"\} 1/);
    expect(body).toMatch(/feedbot_interactions_total\{kind="command",command="stats",subcommand="-",outcome="ok",shard_process="1"\} 2/);
    expect(body).toMatch(/feedbot_shard_process_up\{shard="0",shard_process="manager"\} 1/);
    expect(body).toMatch(/feedbot_shard_process_restarts_total\{shard="1",shard_process="manager"\} 1/);
    // A shard never restarted is at 0, not absent: an alert's increase() sees its first restart.
    expect(body).toMatch(/feedbot_shard_process_restarts_total\{shard="0",shard_process="manager"\} 0/);
    expect(body).toMatch(/process_resident_memory_bytes\{shard_process="manager"\}/);
    // One HELP line per metric: the exposition stays valid with several processes.
    expect(body.match(/^# HELP feedbot_interactions_total /gm)).toHaveLength(1);
  });

  it('says which shard is not ready, and why', async () => {
    const dead = shardProcess(0, ready(0));
    dead.shard.process = { pid: 1000, exitCode: null, signalCode: 'SIGKILL' };
    const silent = shardProcess(1, ready(1), false);
    const connecting = shardProcess(2, { ready: false, shards: { '2': 'Connecting' }, keyStore: 'timeout', problems: ['gateway shard 2 is Connecting', 'key store: timeout'] });
    const shards = new Map([dead, silent, connecting].map((p) => [p.shard.id, p.shard]));
    const host = new HostOps({ ids: [0, 1, 2, 3], shard: (id) => shards.get(id), stopping: () => true }, { askTimeoutMs: 100 });

    const report = await host.readiness();
    expect(report.ready).toBe(false);
    expect(report.shards).toEqual({ '0': 'NoProcess', '1': 'NotAnswering', '2': 'Connecting', '3': 'NoProcess' });
    expect(report.keyStore).toBe('timeout');
    expect(report.problems).toEqual([
      'shard 0: its process is not running (starting or respawning)',
      'shard 1: its process did not answer (no answer within 100 ms)',
      'shard 2: gateway shard 2 is Connecting',
      'shard 2: key store: timeout',
      'shard 3: its process is not running (starting or respawning)',
      'shutting down',
    ]);
    const { body } = await host.scrape();
    expect(body).toMatch(/feedbot_shard_process_up\{shard="0",shard_process="manager"\} 0/);
    expect(body).not.toMatch(/shard_process="1"/);
  });
});
