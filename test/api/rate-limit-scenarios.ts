/**
 * fast-check scenarios for the rate gate against the simulated servers: a server (kind, how it
 * reads Reset, clock skew) and a sequence of steps — bursts of concurrent commands, answers
 * arriving in any order (or lost), time passing, other clients spending the budget, restarts,
 * the bot forgetting the key.
 */
import fc from 'fast-check';
import type { ServerConfig, ServerKind } from './simulated-rate-limit-servers.js';

export type Step =
  /** `n` commands of the bot at once, each wanting one request. */
  | { op: 'commands'; n: number }
  /** One answer in transit reaches the client (`pick` chooses which); `lost`: the connection dropped. */
  | { op: 'deliver'; pick: number; lost: boolean }
  | { op: 'advance'; ms: number }
  /** Other clients of the same key send `n` requests. */
  | { op: 'foreign'; n: number }
  | { op: 'restart' }
  /** The key is removed and set again in the bot: the client forgets what it learnt of it. */
  | { op: 'forget' };

export interface Scenario {
  server: ServerConfig;
  steps: Step[];
}

/** The server kinds the properties cover; "restarting" is any kind that also restarts. */
export type ScenarioKind = ServerKind | 'restarting';
export const SCENARIO_KINDS: readonly ScenarioKind[] = ['fixed', 'sliding', 'bucket', 'restarting'];

export interface ScenarioOptions {
  maxSteps: number;
  /** Whether answers may be lost (the gate-level runs; the client runs only deliver). */
  lostAnswers: boolean;
}

function serverConfig(kind: ScenarioKind): fc.Arbitrary<ServerConfig> {
  const reading = fc.constantFrom('full' as const, 'next' as const);
  return fc.record({
    kind: kind === 'restarting' ? fc.constantFrom<ServerKind>('fixed', 'sliding', 'bucket') : fc.constant(kind),
    aligned: fc.boolean(),
    resetOn200: reading,
    resetOn429: reading,
    // Mostly in step; when not, the server runs ahead (see the gate's note on skew).
    skewMs: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 1500 }), weight: 1 }),
  });
}

function step(kind: ScenarioKind, opts: ScenarioOptions): fc.Arbitrary<Step> {
  const steps: Array<fc.WeightedArbitrary<Step>> = [
    { arbitrary: fc.record({ op: fc.constant('commands' as const), n: fc.integer({ min: 1, max: 30 }) }), weight: 3 },
    {
      arbitrary: fc.record({ op: fc.constant('deliver' as const), pick: fc.nat(), lost: opts.lostAnswers ? fc.integer({ min: 0, max: 7 }).map((n) => n === 0) : fc.constant(false) }),
      weight: 6,
    },
    {
      arbitrary: fc.record({
        op: fc.constant('advance' as const),
        // Short steps cross second boundaries and token refills; long ones cross whole windows.
        ms: fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 3000, max: 70_000 })),
      }),
      weight: 2,
    },
    { arbitrary: fc.record({ op: fc.constant('foreign' as const), n: fc.integer({ min: 1, max: 150 }) }), weight: 1 },
    { arbitrary: fc.constant({ op: 'forget' as const }), weight: 1 },
  ];
  if (kind === 'restarting') steps.push({ arbitrary: fc.constant({ op: 'restart' as const }), weight: 1 });
  return fc.oneof(...steps);
}

export function scenario(kind: ScenarioKind, opts: ScenarioOptions): fc.Arbitrary<Scenario> {
  return fc.record({ server: serverConfig(kind), steps: fc.array(step(kind, opts), { minLength: 1, maxLength: opts.maxSteps, size: 'max' }) });
}

/** Lets every promise reaction and I/O callback queued so far run (a macrotask turn). */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
