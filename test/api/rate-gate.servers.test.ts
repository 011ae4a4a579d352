/**
 * The real rate gates (in memory, and shared through a real Redis) against simulated rate-limited
 * servers of every kind (fixed window, sliding window, token bucket, a server that restarts),
 * with other clients on the same key, answers arriving in any order or lost, and the server's
 * clock ahead of ours:
 *  - safety: no request is sent while a 429 the client received has a reset still to come;
 *  - liveness: every command gets an answer, and once every reset the client was told has
 *    passed, requests go out again (and a rested server answers them).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GatePermit, RateGate } from '../../src/api/gate.js';
import { describeGates, type GateBackend } from './gate-backends.js';
import { Clock } from './helpers.js';
import { SCENARIO_KINDS, scenario, type Scenario, type Step } from './rate-limit-scenarios.js';
import { SimulatedServer, type ServerReply } from './simulated-rate-limit-servers.js';

const KEY = 'key-hash';
/**
 * Per server kind: 4 kinds × RUNS scenarios of up to MAX_STEPS steps run in about a second in
 * memory; a tenth of them against Redis (a few hundred scripts each) take a few seconds.
 */
const RUNS = Number(process.env.RUNS ?? 500);
const RUNS_PER_GATE = { memory: RUNS, redis: Math.ceil(RUNS / 10) };
const MAX_STEPS = 40;

/** The bot's side of one scenario: commands ask the gate, permitted ones reach the server. */
class GateRun {
  readonly clock = new Clock();
  readonly gate: RateGate;
  readonly server: SimulatedServer;
  /** Sent, answered by the server, not yet received by the client. */
  private readonly inTransit: Array<{ permit: GatePermit; reply: ServerReply }> = [];
  private readonly unsettled = new Set<Promise<void>>();
  /** The latest reset any received answer named (read, as the gate does, on our clock). */
  latestResetMs = 0;

  constructor(
    s: Scenario,
    private readonly b: GateBackend,
  ) {
    this.gate = b.make(this.clock.now);
    this.server = new SimulatedServer(s.server, this.clock.now);
  }

  get pendingCommands(): number {
    return this.unsettled.size;
  }

  command(): void {
    const p = this.gate.acquire(KEY).then((d) => {
      if (d.ok) this.send(d.permit);
    });
    this.unsettled.add(p);
    void p.finally(() => this.unsettled.delete(p));
  }

  deliver(pick: number, lost: boolean): void {
    const [t] = this.inTransit.splice(pick % Math.max(1, this.inTransit.length), 1);
    if (!t) return;
    if (lost) return void t.permit.release();
    this.server.delivered(t.reply);
    this.latestResetMs = Math.max(this.latestResetMs, t.reply.resetMs);
    void t.permit.release(t.reply.headers, t.reply.status);
  }

  async play(steps: readonly Step[]): Promise<void> {
    for (const s of steps) {
      if (s.op === 'commands') for (let i = 0; i < s.n; i++) this.command();
      else if (s.op === 'deliver') this.deliver(s.pick, s.lost);
      else if (s.op === 'advance') this.clock.advance(s.ms);
      else if (s.op === 'foreign') this.server.foreign(s.n);
      else if (s.op === 'forget') void this.gate.forget(KEY);
      else this.server.restart();
      await this.b.settle();
    }
  }

  /** Delivers every answer (and those of requests that waiting commands send meanwhile). */
  async drain(): Promise<void> {
    await this.b.settle();
    while (this.inTransit.length > 0) {
      this.deliver(0, false);
      await this.b.settle();
    }
  }

  private send(permit: GatePermit): void {
    this.inTransit.push({ permit, reply: this.server.receive() });
  }
}

describeGates('rate gate against simulated servers', (b) => {
  describe.each(SCENARIO_KINDS)('a %s server', (kind) => {
    it(`never sends into a window a 429 declared spent, and never starves (${RUNS_PER_GATE[b.kind]} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(scenario(kind, { maxSteps: MAX_STEPS, lostAnswers: true }), async (s) => {
          const run = new GateRun(s, b);
          await run.play(s.steps);
          await run.drain();
          expect(run.server.intoSpentWindow()).toEqual([]);
          expect(run.pendingCommands).toBe(0);

          // Every reset we were told has passed: the gate lets a request out again…
          run.clock.ms = Math.max(run.clock.ms, run.latestResetMs);
          run.command();
          await b.settle();
          expect(run.server.received.at(-1)?.atMs).toBe(run.clock.ms + s.server.skewMs);
          await run.drain();
          // …and once the server has rested a whole window (and that answer's reset passed too),
          // it is answered.
          run.clock.ms = Math.max(run.clock.ms + 61_000, run.latestResetMs);
          const before = run.server.received.length;
          run.command();
          await run.drain();
          expect(run.server.received.slice(before).map((r) => r.status)).toEqual([200]);
          expect(run.server.intoSpentWindow()).toEqual([]);
        }),
        { numRuns: RUNS_PER_GATE[b.kind] },
      );
    });
  });
});
