/**
 * What a storm does, drawn from its seed alone: the faults and when they strike, and the stream of
 * random numbers the actors draw their actions from. The same seed, shape, store and length give
 * the same schedule and the same actions in the same order; what real processes make of them
 * (which process wins a claim, how long a call takes) still varies from run to run, as it would
 * in production.
 */
import { seededRandom } from '@feedbot/sandbox';

export const SHAPES = ['gateway', 'shards', 'replicas', 'same-shard'] as const;
export type Shape = (typeof SHAPES)[number];
export const STORES = ['sqlite', 'postgres', 'redis'] as const;
export type Store = (typeof STORES)[number];

export const FAULT_KINDS = [
  'api_slow',
  'api_error',
  'api_error_after',
  'api_reset',
  'api_reset_after',
  'api_garbage',
  'api_garbage_after',
  'api_429',
  'discord_error',
  'discord_429',
  'gateway_reconnect',
  'gateway_resume',
  'gateway_identify',
  'store_down',
  'process_kill',
  'process_term',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface PlannedFault {
  kind: FaultKind;
  /** Seconds from the start of the storm. */
  atS: number;
  /** How long it lasts (a process fault: how long before the process starts again). */
  forS: number;
  /** Share of calls struck (API and Discord faults). */
  probability: number;
  /** Which process (process faults) or shard (gateway faults), as an index drawn from the seed. */
  target: number;
}

export interface StormPlan {
  seed: number;
  shape: Shape;
  store: Store;
  minutes: number;
  /**
   * The store is down when the bot processes start, and comes back this many seconds later (0: up).
   * A process that cannot open its key store exits 1 with one line (docs/RELIABILITY.md); the storm
   * restarts it as a supervisor (systemd, Kubernetes) would until it starts.
   */
  storeDownAtStartS: number;
  faults: PlannedFault[];
  /** Faults stop here (seconds); the rest of the run is calm, then the recovery check. */
  calmFromS: number;
}

/** Which faults a shape and store can suffer. */
export function faultKindsFor(shape: Shape, store: Store): FaultKind[] {
  return FAULT_KINDS.filter((kind) => {
    if (kind.startsWith('gateway_')) return shape !== 'replicas';
    if (kind === 'store_down') return store !== 'sqlite';
    return true;
  });
}

/** One fault every `meanGapS` seconds on average, until the last fifth of the run. */
export function planStorm(seed: number, shape: Shape, store: Store, minutes: number, meanGapS = 6): StormPlan {
  const random = seededRandom(seed);
  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const totalS = minutes * 60;
  const calmFromS = Math.round(totalS * 0.8);
  const kinds = faultKindsFor(shape, store);
  const faults: PlannedFault[] = [];
  for (let at = between(2, meanGapS); at < calmFromS; at += between(meanGapS / 2, meanGapS * 1.5)) {
    const kind = pick(kinds);
    const forS = kind === 'process_kill' || kind === 'process_term' ? between(1, 4) : kind === 'store_down' ? between(4, 15) : between(3, 10);
    faults.push({ kind, atS: round(at), forS: round(Math.min(forS, calmFromS - at)), probability: round(between(0.2, 0.6)), target: Math.floor(random() * 1_000) });
  }
  // Replicas start behind nginx all at once (Stack.startBot): the supervisor's retry is the gateway shapes'.
  const storeDownAtStartS = store !== 'sqlite' && random() < 0.5 && shape !== 'replicas' ? round(between(3, 8)) : 0;
  return { seed, shape, store, minutes, storeDownAtStartS, faults, calmFromS };
}

/** The seed's stream for the actors, apart from the schedule's, so a longer run keeps the same first actions. */
export function actorRandom(seed: number): () => number {
  return seededRandom((seed ^ 0x5bd1e995) >>> 0);
}

/** The command that replays a storm. */
export function replayCommand(plan: Pick<StormPlan, 'seed' | 'minutes' | 'shape' | 'store'>): string {
  return `npm run storm -- --seed ${plan.seed} --minutes ${plan.minutes} --shape ${plan.shape} --store ${plan.store}`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
