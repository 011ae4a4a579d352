/**
 * The host's view of its shard processes, for the manager's ops listener: readiness is every
 * shard's, metrics are every process's merged into one exposition. Each series carries
 * `shard_process` (the shard id the process runs, or `manager`), so nothing from two processes
 * is summed together and Prometheus scrapes one target per host.
 */
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { collectProcessMetrics } from '../ops/metrics.js';
import { zeroed } from '../ops/zeroed.js';
import type { Readiness } from '../ops/readiness.js';
import { askShard, MetricJsonSchema, ReadinessSchema, type ShardChannel } from './ipc.js';

/** A shard process as the manager sees it (a discord.js Shard). */
export interface ShardProcess extends ShardChannel {
  readonly id: number;
  /** The child process, null while it is (re)spawning. */
  readonly process: { readonly pid?: number | undefined; readonly exitCode: number | null; readonly signalCode: string | null } | null;
}

interface HostSources {
  /** The shard ids this host runs (SHARD_IDS, or every shard). */
  ids: readonly number[];
  shard(id: number): ShardProcess | undefined;
  /** True once shutdown began. */
  stopping(): boolean;
}

const ASK_TIMEOUT_MS = 2_000;

const alive = (shard: ShardProcess | undefined): shard is ShardProcess =>
  shard?.process !== null && shard?.process !== undefined && shard.process.exitCode === null && shard.process.signalCode === null;

export class HostOps {
  readonly registry = new Registry();
  private readonly restarts: Counter<'shard'>;

  constructor(
    private readonly sources: HostSources,
    private readonly opts: { askTimeoutMs?: number } = {},
  ) {
    collectProcessMetrics(this.registry);
    this.registry.setDefaultLabels({ shard_process: 'manager' });
    new Gauge({
      name: 'feedbot_shard_process_up',
      help: 'Whether the process of each shard this host runs is alive (1) or gone / respawning (0).',
      labelNames: ['shard'],
      registers: [this.registry],
      collect() {
        for (const id of sources.ids) this.set({ shard: String(id) }, alive(sources.shard(id)) ? 1 : 0);
      },
    });
    this.restarts = new Counter({
      name: 'feedbot_shard_process_restarts_total',
      help: 'Shard processes started again after theirs exited (crash, kill, out of memory).',
      labelNames: ['shard'],
      registers: [this.registry],
    });
    zeroed(this.restarts, sources.ids.map((id) => ({ shard: String(id) })));
  }

  countRestart(id: number): void {
    this.restarts.inc({ shard: String(id) });
  }

  async readiness(): Promise<Readiness> {
    const problems: string[] = this.sources.stopping() ? ['shutting down'] : [];
    const shards: Record<string, string> = {};
    const keyStores = new Set<string>();
    await Promise.all(
      this.sources.ids.map(async (id) => {
        const shard = this.sources.shard(id);
        if (!alive(shard)) {
          shards[id] = 'NoProcess';
          problems.push(`shard ${id}: its process is not running (starting or respawning)`);
          return;
        }
        try {
          const report = ReadinessSchema.parse(await askShard(shard, 'readiness', this.askTimeoutMs));
          shards[id] = report.shards[String(id)] ?? 'Unknown';
          keyStores.add(report.keyStore);
          for (const problem of report.problems) problems.push(`shard ${id}: ${problem}`);
        } catch (error) {
          shards[id] = 'NotAnswering';
          problems.push(`shard ${id}: its process did not answer (${error instanceof Error ? error.message : 'error'})`);
        }
      }),
    );
    const keyStore = [...keyStores].find((state) => state !== 'ok') ?? (keyStores.size > 0 ? 'ok' : 'unknown');
    problems.sort();
    return { ready: problems.length === 0, shards, keyStore, problems };
  }

  /** Every live shard process's metrics and the manager's own, as one exposition. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    const own = await this.registry.getMetricsAsJSON();
    const children = await Promise.all(
      this.sources.ids.map(async (id) => {
        const shard = this.sources.shard(id);
        if (!alive(shard)) return [];
        // A process that does not answer in time is left out of this scrape; feedbot_shard_process_up says whether it lives.
        return askShard(shard, 'metrics', this.askTimeoutMs).then(
          (value) => MetricJsonSchema.array().parse(value),
          () => [],
        );
      }),
    );
    const merged = AggregatorRegistry.aggregate([own, ...children] as Parameters<typeof AggregatorRegistry.aggregate>[0]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }

  private get askTimeoutMs(): number {
    return this.opts.askTimeoutMs ?? ASK_TIMEOUT_MS;
  }
}

/**
 * Resolves once the shard process reports itself ready (the report /readyz is made of), asking
 * every `intervalMs`; rejects with its last problems after `timeoutMs`. A rolling restart waits
 * for this before a replacement takes over, so the host's /readyz never turns 503 for the swap.
 */
export async function awaitShardReady(shard: ShardChannel, opts: { timeoutMs: number; intervalMs?: number; askTimeoutMs?: number }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      const report = ReadinessSchema.parse(await askShard(shard, 'readiness', opts.askTimeoutMs ?? ASK_TIMEOUT_MS));
      if (report.ready) return;
      last = report.problems.join('; ');
    } catch (error) {
      last = `it did not answer (${error instanceof Error ? error.message : 'error'})`;
    }
    if (Date.now() >= deadline) throw new Error(`not ready within ${opts.timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 250));
  }
}
