/**
 * `npm run start:sharded`: discord.js's ShardingManager runs one process per shard of this
 * host (SHARD_IDS, or every shard of SHARD_COUNT / Discord's recommendation), starts them in
 * waves that respect max_concurrency, and starts a process again when it dies. The bot's code in
 * each process is the same as `npm start`'s; discord.js tells it its shard through SHARDS.
 *
 * A rolling restart (roll(), on SIGUSR2 to the manager) replaces every shard process without a
 * moment where a shard has no ready process: wave by wave, under the same identify pacing as the
 * start, it starts a replacement for each shard of the wave beside the running one, waits until
 * the replacement is READY, makes it the shard's process (respawned when it dies, asked by the ops
 * listener), and only then sends SIGTERM to its predecessor, which drains what it has in flight.
 * Discord sends each event to both sessions of a shard meanwhile; the interaction claim makes sure
 * only one process answers each interaction.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShardingManager, type Shard } from 'discord.js';
import type { Logger } from '../logger.js';
import { formatShardIds, identifyWaves } from '../shard-ids.js';

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

/**
 * How a roll() ended: `rolled` (every shard process replaced, the predecessors exited), `ignored`
 * (the host is starting or stopping, or a roll is under way), `refused` (the preflight said no:
 * nothing was started), `failed` (a replacement did not become ready: its predecessor keeps
 * running, the waves after it were not started), `stopped` (the host began stopping meanwhile).
 */
export type RollOutcome = 'rolled' | 'ignored' | 'refused' | 'failed' | 'stopped';

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
  /**
   * Before a roll starts anything: says why the `needed` identifies of the replacements must not
   * be spent (Discord's session start limit), or undefined to go on. A rejection refuses too.
   */
  rollPreflight?(needed: number): Promise<string | undefined>;
  /**
   * During a roll, after a replacement is READY and before it takes over: resolves once it reports
   * itself ready as the ops listener asks (so /readyz stays 200), rejects with why not (bounded).
   */
  confirmReady?(shard: Shard): Promise<void>;
  identifyWindowMs?: number;
  readyTimeoutMs?: number;
  stopTimeoutMs?: number;
}

const running = (child: ChildProcess | null | undefined): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null;

export class HostManager {
  readonly manager: ShardingManager;
  private stopping: Promise<void> | undefined;
  private started = false;
  private rolling: Promise<RollOutcome> | undefined;
  /** When the last identify wave (of the start or a roll) was ready: the next waits a window from it. */
  private lastWaveAt = 0;
  /** Replacements a roll started that have not taken over yet. */
  private readonly replacements = new Set<Shard>();
  /** Shards a roll took out of service, as `predecessor` (replaced) or `replacement` (not ready in time). */
  private readonly retired = new WeakMap<Shard, 'predecessor' | 'replacement'>();
  /** The exit of every process sent SIGTERM, by process: stop() waits for the ones a roll stopped too. */
  private readonly exits = new Map<ChildProcess, Promise<void>>();
  /**
   * What a replacement (until it takes over) and a retired shard see as their manager: the real
   * one, whose `respawn` is false. discord.js's Shard reads `this.manager.respawn` when its process
   * exits, so neither is started again, while the shards in service still are.
   */
  private readonly noRespawn: ShardingManager;

  constructor(private readonly opts: HostManagerOptions) {
    this.manager = new ShardingManager(opts.file, {
      token: opts.token,
      totalShards: opts.plan.count,
      shardList: opts.plan.ids,
      mode: 'process',
      respawn: true,
      execArgv: opts.execArgv,
    });
    this.noRespawn = Object.create(this.manager, { respawn: { value: false } }) as ShardingManager;
    this.manager.on('shardCreate', (shard) => this.watch(shard));
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  get isRolling(): boolean {
    return this.rolling !== undefined;
  }

  /** The shard's process in service (a replacement only once it took over). */
  shard(id: number): Shard | undefined {
    return this.manager.shards.get(id);
  }

  /** Starts every shard process, wave by wave; resolves once all are READY. */
  async start(): Promise<void> {
    const { plan, logger } = this.opts;
    const waves = identifyWaves(plan.ids, plan.maxConcurrency);
    logger.info({ shards: formatShardIds(plan.ids), shardCount: plan.count, maxConcurrency: plan.maxConcurrency, waves: waves.length }, 'starting shard processes');
    for (const wave of waves) {
      await this.identifySlot();
      if (this.stopping) return;
      await Promise.all(wave.map((id) => this.manager.createShard(id).spawn(this.readyTimeoutMs)));
      this.lastWaveAt = Date.now();
    }
    if (this.stopping) return;
    this.started = true;
    logger.info({ shards: formatShardIds(plan.ids) }, 'every shard process is ready');
  }

  /**
   * The rolling restart: replaces every shard process, one identify wave at a time, each
   * predecessor stopped only once its replacement is ready. Ignored (with an info line) while the
   * host starts or stops, or while a roll is under way; never rejects.
   */
  roll(): Promise<RollOutcome> {
    const { logger } = this.opts;
    const ignore = (why: string): Promise<RollOutcome> => {
      logger.info(`rolling restart ignored: ${why}`);
      return Promise.resolve('ignored');
    };
    if (this.stopping) return ignore('the host is stopping');
    if (!this.started) return ignore('the shard processes are still starting');
    if (this.rolling) return ignore('a rolling restart is already under way');
    const rolling = this.rollWaves()
      .catch((error: unknown) => {
        logger.error({ err: error }, 'rolling restart failed');
        return 'failed' as const;
      })
      .finally(() => {
        this.rolling = undefined;
      });
    this.rolling = rolling;
    return rolling;
  }

  /** Stops respawning, asks every shard process to drain (SIGTERM), kills what is left. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.manager.respawn = false;
      const shards = [...this.manager.shards.values(), ...this.replacements];
      const children = shards.map((shard) => shard.process).filter(running);
      // And the predecessors a roll stopped, still draining.
      await Promise.all([...children.map((child) => this.terminate(child)), ...this.exits.values()]);
    })();
    return this.stopping;
  }

  /** SIGKILL to every shard process still running, at once (the manager is going down hard). */
  kill(): void {
    this.manager.respawn = false;
    const shards = [...this.manager.shards.values(), ...this.replacements];
    for (const child of [...shards.map((shard) => shard.process), ...this.exits.keys()]) {
      if (running(child)) child.kill('SIGKILL');
    }
  }

  private async rollWaves(): Promise<RollOutcome> {
    const { plan, logger } = this.opts;
    const shards = formatShardIds(plan.ids);
    let refusal: string | undefined;
    try {
      refusal = await this.opts.rollPreflight?.(plan.ids.length);
    } catch (error) {
      refusal = `could not check Discord's session start limit (GET /gateway/bot): ${error instanceof Error ? error.message : String(error)}`;
    }
    if (refusal !== undefined) {
      logger.error({ shards, needed: plan.ids.length, reason: refusal }, `rolling restart refused: ${refusal}`);
      return 'refused';
    }
    const waves = identifyWaves(plan.ids, plan.maxConcurrency);
    logger.info({ shards, maxConcurrency: plan.maxConcurrency, waves: waves.length }, 'rolling restart: replacing every shard process, wave by wave');
    for (const [k, wave] of waves.entries()) {
      await this.identifySlot();
      if (this.stopping) return this.rollStopped();
      const results = await Promise.allSettled(wave.map((id) => this.startReplacement(id)));
      this.lastWaveAt = Date.now();
      // stop() sent SIGTERM to the replacements too.
      if (this.stopping) return this.rollStopped();
      const failed: { shard: number; error: string }[] = [];
      for (const [i, result] of results.entries()) {
        const id = wave[i]!;
        if (result.status === 'fulfilled' && running(result.value.process)) this.takeOver(id, result.value);
        else {
          const error = result.status === 'rejected' ? result.reason : new Error('its process exited once ready');
          failed.push({ shard: id, error: error instanceof Error ? error.message : String(error) });
          if (result.status === 'fulfilled') this.retire(result.value, 'replacement');
        }
      }
      if (failed.length > 0) {
        logger.error(
          { shards: formatShardIds(failed.map((f) => f.shard)), failed, notReplaced: formatShardIds([...failed.map((f) => f.shard), ...waves.slice(k + 1).flat()]) },
          'rolling restart stopped: a replacement shard process did not become ready; the running process keeps its shard',
        );
        return 'failed';
      }
      logger.info({ shards: formatShardIds(wave), wave: k + 1, waves: waves.length }, 'rolling restart: wave replaced');
    }
    // Every shard has its replacement in service; the predecessors drain.
    await Promise.all(this.exits.values());
    logger.info({ shards }, 'rolling restart done: every shard process was replaced');
    return 'rolled';
  }

  private rollStopped(): RollOutcome {
    this.opts.logger.info('rolling restart stopped: the host is stopping');
    return 'stopped';
  }

  /** Starts a replacement for shard `id` beside its process in service; resolves once it is ready. */
  private async startReplacement(id: number): Promise<Shard> {
    const current = this.manager.shards.get(id);
    // createShard (discord.js's way to make a Shard: it emits shardCreate, so watch() sees it) puts
    // the new one in the collection; the one in service stays there until its replacement is ready.
    const replacement = this.manager.createShard(id);
    if (current) this.manager.shards.set(id, current);
    else this.manager.shards.delete(id);
    replacement.manager = this.noRespawn;
    this.replacements.add(replacement);
    try {
      await replacement.spawn(this.readyTimeoutMs);
      await this.opts.confirmReady?.(replacement);
      return replacement;
    } catch (error) {
      // Died (not started again: noRespawn), or not ready in time: stopped, the current one stays.
      this.retire(replacement, 'replacement');
      throw error;
    }
  }

  /** The replacement becomes shard `id`'s process in service; its predecessor drains and exits. */
  private takeOver(id: number, replacement: Shard): void {
    const predecessor = this.manager.shards.get(id);
    this.replacements.delete(replacement);
    replacement.manager = this.manager;
    this.manager.shards.set(id, replacement);
    this.opts.logger.info({ shard: id, pid: replacement.process?.pid, predecessorPid: predecessor?.process?.pid }, 'shard process replaced: stopping its predecessor');
    if (predecessor && predecessor !== replacement) this.retire(predecessor, 'predecessor');
  }

  /** Takes a shard out of service for good: never started again; SIGTERM to its process. */
  private retire(shard: Shard, role: 'predecessor' | 'replacement'): void {
    this.replacements.delete(shard);
    this.retired.set(shard, role);
    shard.manager = this.noRespawn;
    const child = shard.process;
    if (running(child)) void this.terminate(child);
  }

  /** SIGTERM (the bot drains), SIGKILL after the stop time-out; resolves once it exited. */
  private terminate(child: ChildProcess): Promise<void> {
    let exit = this.exits.get(child);
    if (exit) return exit;
    exit = new Promise<void>((resolve) => {
      if (!running(child)) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), this.opts.stopTimeoutMs ?? STOP_TIMEOUT_MS);
      child.once('exit', () => {
        clearTimeout(timer);
        this.exits.delete(child);
        resolve();
      });
      child.kill('SIGTERM');
    });
    this.exits.set(child, exit);
    return exit;
  }

  /** Waits until an identify window has passed since the last wave was ready. */
  private async identifySlot(): Promise<void> {
    const wait = this.lastWaveAt + (this.opts.identifyWindowMs ?? IDENTIFY_WINDOW_MS) - Date.now();
    if (this.lastWaveAt > 0 && wait > 0) await sleep(wait);
  }

  private get readyTimeoutMs(): number {
    return this.opts.readyTimeoutMs ?? READY_TIMEOUT_MS;
  }

  private watch(shard: Shard): void {
    const log = this.opts.logger.child({ shard: shard.id });
    let spawns = 0;
    // mode 'process': always a ChildProcess, never a Worker.
    shard.on('spawn', (child) => {
      spawns++;
      const replacement = this.replacements.has(shard);
      log.info({ pid: (child as ChildProcess).pid, restart: spawns > 1, ...(replacement ? { replacement } : {}) }, 'shard process started');
      if (spawns > 1) this.opts.onRespawn?.(shard.id);
    });
    shard.on('death', (child) => {
      const { exitCode, signalCode, pid } = child as ChildProcess;
      const role = this.retired.get(shard);
      if (role === 'predecessor') return log.info({ pid, code: exitCode, signal: signalCode }, 'replaced shard process exited');
      const level = this.stopping ? 'info' : 'warn';
      if (role === 'replacement' || this.replacements.has(shard)) return log[level]({ pid, code: exitCode, signal: signalCode }, 'replacement shard process exited');
      log[level]({ code: exitCode, signal: signalCode, respawning: !this.stopping && this.manager.respawn }, 'shard process exited');
    });
    shard.on('ready', () => log.info('shard ready'));
    shard.on('error', (error: Error) => log.error({ err: error }, 'shard process error'));
  }
}
