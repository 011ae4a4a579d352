/**
 * `npm run start:sharded`: discord.js's ShardingManager runs one process per shard of this
 * host (SHARD_IDS, or every shard of SHARD_COUNT / Discord's recommendation), starts them in
 * waves that respect max_concurrency, and starts a process again when it dies. The bot's code in
 * each process is the same as `npm start`'s; discord.js tells it its shard through SHARDS.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShardingManager, type Shard } from 'discord.js';
import type { Logger } from '../logger.js';
import { formatShardIds, identifyWaves } from './shard-ids.js';

/** Discord allows one identify per bucket every 5 s; the margin covers clock and network jitter. */
const IDENTIFY_WINDOW_MS = 5_500;
/** How long a shard process may take from spawn to READY before start-up counts as failed. */
const READY_TIMEOUT_MS = 120_000;
/** How long stop() waits for shard processes to drain and exit before killing them. */
export const STOP_TIMEOUT_MS = 20_000;

export interface ShardPlan {
  /** Total shards of the bot, every host together. */
  count: number;
  /** The shards this host runs. */
  ids: number[];
  maxConcurrency: number;
}

interface HostManagerOptions {
  /** The bot's entry (`index.js` beside this file, or `index.ts` from source). */
  file: string;
  token: string;
  plan: ShardPlan;
  logger: Logger;
  /** Node options of the shard processes (the manager's own: source maps, or tsx from source). */
  execArgv: string[];
  /** Called each time a shard process starts again after its previous one exited. */
  onRespawn?(id: number): void;
  identifyWindowMs?: number;
}

export class HostManager {
  readonly manager: ShardingManager;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: HostManagerOptions) {
    this.manager = new ShardingManager(opts.file, {
      token: opts.token,
      totalShards: opts.plan.count,
      shardList: opts.plan.ids,
      mode: 'process',
      respawn: true,
      execArgv: opts.execArgv,
    });
    this.manager.on('shardCreate', (shard) => this.watch(shard));
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  shard(id: number): Shard | undefined {
    return this.manager.shards.get(id);
  }

  /** Starts every shard process, wave by wave; resolves once all are READY. */
  async start(): Promise<void> {
    const { plan, logger } = this.opts;
    const waves = identifyWaves(plan.ids, plan.maxConcurrency);
    logger.info({ shards: formatShardIds(plan.ids), shardCount: plan.count, maxConcurrency: plan.maxConcurrency, waves: waves.length }, 'starting shard processes');
    for (const [k, wave] of waves.entries()) {
      if (this.stopping) return;
      if (k > 0) await sleep(this.opts.identifyWindowMs ?? IDENTIFY_WINDOW_MS);
      await Promise.all(wave.map((id) => this.manager.createShard(id).spawn(READY_TIMEOUT_MS)));
    }
    logger.info({ shards: formatShardIds(plan.ids) }, 'every shard process is ready');
  }

  /** Stops respawning, asks every shard process to drain (SIGTERM), kills what is left. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.manager.respawn = false;
      const exits = [...this.manager.shards.values()].map((shard) => this.terminate(shard));
      await Promise.all(exits);
    })();
    return this.stopping;
  }

  /** SIGKILL to every shard process still running, at once (the manager is going down hard). */
  kill(): void {
    this.manager.respawn = false;
    for (const shard of this.manager.shards.values()) {
      const child = shard.process;
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  private async terminate(shard: Shard): Promise<void> {
    const child = shard.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private watch(shard: Shard): void {
    const log = this.opts.logger.child({ shard: shard.id });
    let spawns = 0;
    // mode 'process': always a ChildProcess, never a Worker.
    shard.on('spawn', (child) => {
      spawns++;
      log.info({ pid: (child as ChildProcess).pid, restart: spawns > 1 }, 'shard process started');
      if (spawns > 1) this.opts.onRespawn?.(shard.id);
    });
    shard.on('death', (child) => {
      const { exitCode, signalCode } = child as ChildProcess;
      const level = this.stopping ? 'info' : 'warn';
      log[level]({ code: exitCode, signal: signalCode, respawning: !this.stopping && this.manager.respawn }, 'shard process exited');
    });
    shard.on('ready', () => log.info('shard ready'));
    shard.on('error', (error: Error) => log.error({ err: error }, 'shard process error'));
  }
}
