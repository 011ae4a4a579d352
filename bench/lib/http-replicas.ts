/**
 * Scenario 10, parts 3 and 4: deliveries as Discord makes them (signed when sent, one fresh
 * connection each, as the emulator's courier does), timed from the request to the last byte of
 * the answer.
 *
 *   deliveryLatency  the same autocomplete, one delivery at a time, alternating between nginx in
 *                    front of the replicas and one replica addressed directly: what nginx adds.
 *   storm            scenario 2's typing schedule sent to two endpoints side by side (each with
 *                    its own guild and key): replicas behind nginx, which spreads the keystrokes
 *                    round-robin, and a single replica.
 */
import { autocomplete } from './discord.js';
import { typingSchedule } from './schedule.js';
import { choicesIn, postSigned, type BenchSigner } from './signed-post.js';
import { until } from './time.js';

export interface Answer {
  status: number;
  choices: number;
  ms: number;
}

/** One delivery; a connection error counts as status 0. */
async function deliver(signer: BenchSigner, endpoint: string, payload: object): Promise<Answer> {
  try {
    const answer = await postSigned(endpoint, signer.signed(payload));
    return { status: answer.status, choices: choicesIn(answer.body), ms: answer.ms };
  } catch {
    return { status: 0, choices: 0, ms: Number.NaN };
  }
}

export interface LatencyOptions {
  signer: BenchSigner;
  /** nginx's interactions URL, and one replica's. */
  viaNginx: string;
  direct: string;
  guildId: string;
  deliveries: number;
  warmup: number;
}

export interface LatencyRun {
  viaNginx: Answer[];
  direct: Answer[];
}

export async function deliveryLatency(opts: LatencyOptions): Promise<LatencyRun> {
  const queries = ['', 'n', 'na', 'e', 'es', 'c'];
  const payload = (i: number) => autocomplete('feed', i % 2 === 0 ? 'delete' : 'posts', { id: queries[i % queries.length]! }, 'id', { guildId: opts.guildId, userId: String(1400000000000003000n + BigInt(i % 40)) });
  const run: LatencyRun = { viaNginx: [], direct: [] };
  for (let i = 0; i < opts.warmup; i++) {
    // Through nginx first: every replica fills its caches (channel names, key) before timing.
    await deliver(opts.signer, opts.viaNginx, payload(i));
    await deliver(opts.signer, opts.direct, payload(i));
  }
  for (let i = 0; i < opts.deliveries; i++) {
    // Alternating, who goes first too, so drift on the machine reaches both alike.
    const order = i % 2 === 0 ? (['viaNginx', 'direct'] as const) : (['direct', 'viaNginx'] as const);
    for (const side of order) run[side].push(await deliver(opts.signer, opts[side], payload(i)));
  }
  return run;
}

export interface StormSide {
  endpoint: string;
  guildId: string;
}

export interface StormOptions<S extends string> {
  signer: BenchSigner;
  sides: Record<S, StormSide>;
  count: number;
  windowMs: number;
}

export async function storm<S extends string>(opts: StormOptions<S>): Promise<{ answers: Record<S, Answer[]>; spanMs: number }> {
  const names = Object.keys(opts.sides) as S[];
  const pending = Object.fromEntries(names.map((name) => [name, [] as Promise<Answer>[]])) as Record<S, Promise<Answer>[]>;
  const t0 = performance.now();
  for (const [i, k] of typingSchedule(opts.count, opts.windowMs).entries()) {
    await until(t0, k.at);
    for (let s = 0; s < names.length; s++) {
      const name = names[(i + s) % names.length]!;
      const side = opts.sides[name];
      const raw = autocomplete('feed', k.subcommand, { id: k.query }, 'id', { guildId: side.guildId, userId: k.userId });
      pending[name].push(deliver(opts.signer, side.endpoint, raw));
    }
  }
  const spanMs = performance.now() - t0;
  const answers = {} as Record<S, Answer[]>;
  for (const name of names) answers[name] = await Promise.all(pending[name]);
  return { answers, spanMs };
}
