/**
 * The whole request layer (FeedApiClient → requester → rate gate → undici) against the simulated
 * rate-limited servers, through the MockAgent: every answer is held until the scenario delivers
 * it, so answers overtake each other as they do on a real connection pool. Same properties as
 * rate-gate.servers.test.ts, plus what callers see: every call settles, as its answer, the
 * upstream 429 or a local refusal, and a 429's resetAt is when the gate opens again.
 */
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { RateGateRefusalError, RateLimitedError } from '../../src/api/errors.js';
import type { FeedApiClient } from '../../src/api/client.js';
import { apiTest as it } from './fixtures.js';
import { AUTH, BASE_PATH, POSTS, type Clock } from './helpers.js';
import { SCENARIO_KINDS, scenario, turn, type Scenario, type Step } from './rate-limit-scenarios.js';
import { SimulatedServer, type ServerReply } from './simulated-rate-limit-servers.js';

/** Per server kind; each run is a fresh client. The file runs in about two seconds. */
const RUNS = Number(process.env.RUNS ?? 100);
const MAX_STEPS = 25;
/** Event-loop turns an answer may take from delivery to the caller (undici streams the body). */
const MAX_TURNS = 50;

type Outcome = 'ok' | 'upstream429' | 'refused' | 'other';

/** One scenario through one client; the MockAgent interceptor hands each request to `arrive`. */
class ClientRun {
  readonly server: SimulatedServer;
  private readonly inTransit: Array<{ id: number; reply: ServerReply; deliver: () => void }> = [];
  private readonly outcomes = new Map<number, Outcome | undefined>();
  /** The reset each call's answer carried, once delivered. */
  private readonly resetOf = new Map<number, number>();
  private nextId = 1;
  latestResetMs = 0;
  /** Calls whose RateLimitedError named a time before their own 429's reset. */
  readonly earlyResetAt: number[] = [];

  constructor(
    s: Scenario,
    private readonly client: FeedApiClient,
    private readonly clock: Clock,
  ) {
    this.server = new SimulatedServer(s.server, clock.now);
  }

  /** The server receives a request; its answer waits for `deliver`. */
  arrive(path: string): { statusCode: number; data: () => Promise<unknown>; responseOptions: { headers: Record<string, string> } } {
    const id = Number(/\/feeds\/(\d+)\//.exec(path)?.[1]);
    const reply = this.server.receive();
    let deliver!: () => void;
    const delivered = new Promise<void>((resolve) => (deliver = resolve));
    this.inTransit.push({ id, reply, deliver });
    const body = reply.status === 200 ? POSTS : { mensaje: 'slow down' };
    return { statusCode: reply.status, data: () => delivered.then(() => body), responseOptions: { headers: reply.headers } };
  }

  command(): void {
    const id = this.nextId++;
    this.outcomes.set(id, undefined);
    const settle = (o: Outcome) => this.outcomes.set(id, o);
    this.client.listPosts(AUTH, id).then(
      () => settle('ok'),
      (err: unknown) => {
        if (err instanceof RateLimitedError) {
          // The caller hears when the gate opens again: never before the reset its 429 gave.
          if (err.resetAt.getTime() < (this.resetOf.get(id) ?? Infinity)) this.earlyResetAt.push(id);
          settle('upstream429');
        } else settle(err instanceof RateGateRefusalError ? 'refused' : 'other');
      },
    );
  }

  async deliver(pick: number): Promise<void> {
    const [t] = this.inTransit.splice(pick % Math.max(1, this.inTransit.length), 1);
    if (!t) return;
    this.server.delivered(t.reply);
    this.resetOf.set(t.id, t.reply.resetMs);
    this.latestResetMs = Math.max(this.latestResetMs, t.reply.resetMs);
    t.deliver();
    for (let i = 0; i < MAX_TURNS && this.outcomes.get(t.id) === undefined; i++) await turn();
    expect(this.outcomes.get(t.id), `call ${t.id} settles once its answer arrived`).toBeDefined();
    await turn(); // waiters woken by that answer send theirs
  }

  async play(steps: readonly Step[]): Promise<void> {
    for (const s of steps) {
      if (s.op === 'commands') for (let i = 0; i < s.n; i++) this.command();
      else if (s.op === 'deliver') await this.deliver(s.pick);
      else if (s.op === 'advance') this.clock.advance(s.ms);
      else if (s.op === 'foreign') this.server.foreign(s.n);
      else if (s.op === 'forget') this.client.forgetKey(AUTH.apiKey);
      else this.server.restart();
      await turn();
    }
  }

  /** Delivers everything; afterwards every call has settled. */
  async drain(): Promise<void> {
    for (let idle = 0; idle < MAX_TURNS; ) {
      if (this.inTransit.length > 0) {
        await this.deliver(0);
        idle = 0;
      } else if (this.unsettled() > 0) {
        await turn();
        idle++;
      } else return;
    }
    expect(this.unsettled(), 'calls left waiting with nothing in flight').toBe(0);
  }

  counts(): Record<Outcome, number> {
    const c = { ok: 0, upstream429: 0, refused: 0, other: 0 };
    for (const o of this.outcomes.values()) if (o) c[o]++;
    return c;
  }

  private unsettled(): number {
    return [...this.outcomes.values()].filter((o) => o === undefined).length;
  }
}

describe.each(SCENARIO_KINDS)('client against a %s server', (kind) => {
  it(`sends nothing into a spent window; every call settles; requests flow after the reset (${RUNS} runs)`, async ({ pool, makeClient, clock }) => {
    const start = clock.ms;
    let run: ClientRun | undefined;
    pool
      .intercept({ path: (p) => p.startsWith(`${BASE_PATH}/feeds/`), method: 'GET' })
      .reply(({ path }) => run!.arrive(path))
      .persist();

    await fc.assert(
      fc.asyncProperty(scenario(kind, { maxSteps: MAX_STEPS, lostAnswers: false }), async (s) => {
        clock.ms = start;
        // No retries: a 429 is never retried anyway, and the scenario delivers every answer.
        const r = new ClientRun(s, makeClient({ maxRetries: 0, timeoutMs: 60_000, totalTimeoutMs: 120_000 }), clock);
        run = r;
        await r.play(s.steps);
        await r.drain();
        expect(r.server.intoSpentWindow()).toEqual([]);
        expect(r.counts().other).toBe(0);
        expect(r.earlyResetAt).toEqual([]);

        clock.ms = Math.max(clock.ms, r.latestResetMs);
        const before = r.server.received.length;
        r.command();
        for (let i = 0; i < MAX_TURNS && r.server.received.length === before; i++) await turn();
        expect(r.server.received.length, 'a request goes out once every reset has passed').toBe(before + 1);
        await r.drain();
        expect(r.server.intoSpentWindow()).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
