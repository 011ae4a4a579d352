/**
 * The batch runner on a fake clock: order, throttled progress edits, waits for the budget's reset
 * (local gate and 429), the deadline, per-step refusals and batch-stopping errors.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import {
  BadRequestError,
  ConnectionError,
  NotFoundError,
  RateGateRefusalError,
  RateLimitedError,
  UnauthorizedError,
} from '../../src/api/errors.js';
import type { ReplyPayload } from '../../src/interactions/responder.js';
import {
  INTERACTION_TOKEN_LIFETIME_MS,
  StepRefusedError,
  defaultClassify,
  runSteps,
  tokenDeadline,
  type BatchEnvironment,
  type BatchProgress,
  type BatchStep,
} from '../../src/transfer/batch.js';

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

/** A clock that only moves when a step takes time or the runner sleeps, and the edits it saw. */
function fakeEnvironment(opts: { failEdits?: boolean } = {}) {
  let clock = T0;
  const edits: BatchProgress[] = [];
  const sleeps: number[] = [];
  const env: BatchEnvironment = {
    now: () => clock,
    edit: async (payload: ReplyPayload) => {
      if (opts.failEdits) throw new Error('discord is down');
      edits.push(JSON.parse(payload.content ?? '{}') as BatchProgress);
    },
    logger: pino({ level: 'silent' }),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  };
  return { env, edits, sleeps, advance: (ms: number) => (clock += ms), now: () => clock };
}

const render = (p: BatchProgress): ReplyPayload => ({
  content: JSON.stringify({ ...p, waitingUntil: p.waitingUntil?.getTime() }),
});

function steps(n: number, opts: { takesMs?: number; advance?: (ms: number) => void; fail?: Record<number, () => unknown> } = {}): BatchStep<number>[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `s${i}`,
    label: `step ${i}`,
    run: async () => {
      opts.advance?.(opts.takesMs ?? 0);
      const fail = opts.fail?.[i];
      if (fail) throw fail();
      return i;
    },
  }));
}

const refusal = (resetAt: number) => new RateGateRefusalError({ route: 'createFeed', resetAt: new Date(resetAt) });
const limited = (resetAt: number) => new RateLimitedError({ route: 'createFeed', attempts: 1, resetAt: new Date(resetAt) });

describe('runSteps', () => {
  it('runs every step in order and throttles edits to one per interval', async () => {
    const f = fakeEnvironment();
    const report = await runSteps(f.env, { steps: steps(10, { takesMs: 300, advance: f.advance }), render, deadline: T0 + 60_000 });
    expect(report.done.map((d) => d.result)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(report.refused).toEqual([]);
    expect(report.notAttempted).toEqual([]);
    expect(report.stop).toBeUndefined();
    // The start, then one edit per ≥1 s of steps (300 ms each); the final one is the caller's.
    expect(f.edits.map((e) => e.done)).toEqual([0, 4, 8]);
    expect(report.stats.edits).toBe(3);
    expect(report.stats.endedAt - report.stats.startedAt).toBe(3_000);
  });

  it('waits for the reset after a local refusal or a 429, says so, then runs the same step again', async () => {
    const f = fakeEnvironment();
    let attempts = 0;
    const list = steps(3);
    list[1] = { key: 's1', label: 'step 1', run: async () => (++attempts === 1 ? Promise.reject(refusal(T0 + 20_000)) : 1) };
    list[2] = { key: 's2', label: 'step 2', run: async () => (++attempts === 3 ? Promise.reject(limited(T0 + 50_000)) : 2) };
    const report = await runSteps(f.env, { steps: list, render, deadline: T0 + 60_000 });
    expect(report.done.map((d) => d.result)).toEqual([0, 1, 2]);
    expect(attempts).toBe(4);
    expect(f.sleeps).toEqual([20_000, 30_000]);
    expect(report.stats.waitedMs).toBe(50_000);
    const waiting = f.edits.filter((e) => e.waitingUntil !== undefined);
    expect(waiting).toEqual([
      { total: 3, done: 1, refused: 0, waitingUntil: T0 + 20_000 },
      { total: 3, done: 2, refused: 0, waitingUntil: T0 + 50_000 },
    ]);
  });

  it('waits a little when a refusal names a reset already past (clocks disagree), instead of spinning', async () => {
    const f = fakeEnvironment();
    let attempts = 0;
    const list: BatchStep<number>[] = [{ key: 'a', label: 'a', run: async () => (++attempts === 1 ? Promise.reject(refusal(T0 - 5_000)) : 0) }];
    const report = await runSteps(f.env, { steps: list, render, deadline: T0 + 60_000 });
    expect(report.done).toHaveLength(1);
    expect(f.sleeps).toEqual([250]);
  });

  it('stops cleanly when the reset comes after the deadline, listing what was not attempted', async () => {
    const f = fakeEnvironment();
    const report = await runSteps(f.env, {
      steps: steps(4, { fail: { 2: () => limited(T0 + 120_000) } }),
      render,
      deadline: T0 + 60_000,
    });
    expect(report.done.map((d) => d.step.key)).toEqual(['s0', 's1']);
    expect(report.notAttempted.map((s) => s.key)).toEqual(['s2', 's3']);
    expect(report.stop).toEqual({ reason: 'deadline', resetAt: new Date(T0 + 120_000) });
    expect(f.sleeps).toEqual([]);
  });

  it('does not start a step after the deadline', async () => {
    const f = fakeEnvironment();
    const report = await runSteps(f.env, { steps: steps(5, { takesMs: 10_000, advance: f.advance }), render, deadline: T0 + 25_000 });
    expect(report.done).toHaveLength(3);
    expect(report.notAttempted.map((s) => s.key)).toEqual(['s3', 's4']);
    expect(report.stop).toEqual({ reason: 'deadline' });
  });

  it('records per-step refusals (400, 404, a step refusing itself) and goes on', async () => {
    const f = fakeEnvironment();
    const bad = new BadRequestError({ route: 'createFeed', attempts: 1, status: 400, apiMessage: 'feed limit reached' });
    const report = await runSteps(f.env, {
      steps: steps(4, {
        fail: {
          0: () => bad,
          1: () => new NotFoundError({ route: 'deleteFeed', attempts: 1, status: 404, feedId: 7 }),
          2: () => new StepRefusedError('transfer.reason.notConfirmed'),
        },
      }),
      render,
      deadline: T0 + 60_000,
    });
    expect(report.refused.map((r) => r.step.key)).toEqual(['s0', 's1', 's2']);
    expect(report.refused[0]!.error).toBe(bad);
    expect(report.done.map((d) => d.step.key)).toEqual(['s3']);
    expect(report.stop).toBeUndefined();
  });

  it.each([
    ['401', () => new UnauthorizedError({ route: 'createFeed', attempts: 1, status: 401 })],
    ['unreachable', () => new ConnectionError({ route: 'createFeed', attempts: 1, systemCode: 'ECONNREFUSED' })],
    ['a bug', () => new TypeError('oops')],
  ])('stops the batch on %s, keeping the error', async (_name, error) => {
    const f = fakeEnvironment();
    const thrown = error();
    const report = await runSteps(f.env, { steps: steps(3, { fail: { 1: () => thrown } }), render, deadline: T0 + 60_000 });
    expect(report.done).toHaveLength(1);
    expect(report.refused).toEqual([]);
    expect(report.notAttempted.map((s) => s.key)).toEqual(['s1', 's2']);
    expect(report.stop).toEqual({ reason: 'error', error: thrown });
  });

  it('stops before the next step when aborted, also in the middle of a wait', async () => {
    const f = fakeEnvironment();
    const abort = new AbortController();
    f.env.sleep = async () => abort.abort();
    const report = await runSteps(f.env, { steps: steps(3, { fail: { 1: () => refusal(T0 + 10_000) } }), render, deadline: T0 + 60_000, signal: abort.signal });
    expect(report.stop).toEqual({ reason: 'aborted' });
    expect(report.notAttempted.map((s) => s.key)).toEqual(['s1', 's2']);
  });

  it('keeps going when a progress edit fails (the final edit may still land)', async () => {
    const f = fakeEnvironment({ failEdits: true });
    const report = await runSteps(f.env, { steps: steps(2), render, deadline: T0 + 60_000 });
    expect(report.done).toHaveLength(2);
  });

  it('edits nothing before the first step when told so', async () => {
    const f = fakeEnvironment();
    await runSteps(f.env, { steps: steps(2), render, deadline: T0 + 60_000, editAtStart: false });
    expect(f.edits).toEqual([]);
  });
});

describe('helpers', () => {
  it('tokenDeadline keeps a margin before the 15-minute token dies', () => {
    expect(INTERACTION_TOKEN_LIFETIME_MS).toBe(900_000);
    expect(tokenDeadline({ createdTimestamp: T0 }, 30_000)).toBe(T0 + 870_000);
    expect(tokenDeadline({ createdTimestamp: T0 })).toBeLessThan(T0 + 900_000);
  });

  it('defaultClassify: 400/404/own refusals are per step, the rest stops', () => {
    expect(defaultClassify(new BadRequestError({ attempts: 1, status: 400 }))).toBe('refused');
    expect(defaultClassify(new StepRefusedError('transfer.reason.notConfirmed'))).toBe('refused');
    expect(defaultClassify(new UnauthorizedError({ attempts: 1, status: 401 }))).toBe('stop');
    expect(defaultClassify(new Error('x'))).toBe('stop');
  });
});
