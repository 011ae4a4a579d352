import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIRST_USE_BURST, type GateDecision, type GatePermit, type RateGate } from '../../src/api/gate.js';
import { MemoryRateGate } from '../../src/api/rate-gate.js';
import { MAX_RESET_AHEAD_MS, parseRemaining, parseReset, parseRetryAfter, type HeaderBag } from '../../src/api/rate-headers.js';
import { describeGates } from './gate-backends.js';
import { Clock, rateHeaders } from './helpers.js';


async function permit(gate: RateGate, key = 'k'): Promise<GatePermit> {
  const d = await gate.acquire(key);
  if (!d.ok) throw new Error('refused');
  return d.permit;
}

/** One request through the gate, answered at once. */
async function spend(gate: RateGate, headers?: HeaderBag, status?: number, key = 'k'): Promise<void> {
  await (await permit(gate, key)).release(headers, status);
}

describe('rate headers', () => {
  const clock = new Clock();
  it('parses Remaining; ignores junk', () => {
    expect(parseRemaining({ 'x-ratelimit-remaining': '17' })).toBe(17);
    expect(parseRemaining({ 'x-ratelimit-remaining': ['3', '9'] })).toBe(3);
    for (const bad of ['', '-1', '1.5', 'abc', '1e3', '9999999999']) {
      expect(parseRemaining({ 'x-ratelimit-remaining': bad })).toBeNull();
    }
    expect(parseRemaining({})).toBeNull();
  });

  it('parses Reset as Unix seconds, epoch ms or (small numbers) seconds from now; clamps far resets', () => {
    const secs = Math.floor(clock.ms / 1000) + 30;
    expect(parseReset({ 'x-ratelimit-reset': String(secs) }, clock.ms)).toBe(secs * 1000);
    expect(parseReset({ 'x-ratelimit-reset': String(clock.ms + 5000) }, clock.ms)).toBe(clock.ms + 5000);
    expect(parseReset({ 'x-ratelimit-reset': '12' }, clock.ms)).toBe(clock.ms + 12_000);
    expect(parseReset({ 'x-ratelimit-reset': String(secs + 86_400) }, clock.ms)).toBe(clock.ms + MAX_RESET_AHEAD_MS);
    for (const bad of ['', 'soon', '-5', 'NaN', 'Infinity']) expect(parseReset({ 'x-ratelimit-reset': bad }, clock.ms)).toBeNull();
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter({ 'retry-after': '7' }, clock.ms)).toBe(clock.ms + 7000);
    const date = new Date(clock.ms + 20_000).toUTCString();
    expect(parseRetryAfter({ 'retry-after': date }, clock.ms)).toBe(Math.floor((clock.ms + 20_000) / 1000) * 1000);
    expect(parseRetryAfter({ 'retry-after': 'whenever' }, clock.ms)).toBeNull();
  });
});


describeGates('RateGate', (b) => {
  /** A single request goes out; the next one waits for its answer, then is admitted. */
  async function expectOneProbe(gate: RateGate, clock: Clock): Promise<void> {
    const probe = await permit(gate);
    let next: GateDecision | undefined;
    void gate.acquire('k').then((d) => (next = d));
    await b.settle();
    expect(next).toBeUndefined();
    void probe.release(rateHeaders(99, clock.resetIn(60)));
    await b.settle();
    expect(next?.ok).toBe(true);
  }

  it('first use lets a few requests through; a new window of a known key lets up to 10 through at once', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    const firsts: GatePermit[] = [];
    for (let i = 0; i < FIRST_USE_BURST; i++) firsts.push(await permit(gate));
    let next: GateDecision | undefined;
    void gate.acquire('k').then((d) => (next = d));
    await b.settle();
    expect(next).toBeUndefined(); // beyond the first-use burst: wait for the first answer
    void firsts[0]!.release(rateHeaders(99, clock.resetIn(60)));
    await b.settle();
    expect(next?.ok).toBe(true);
    if (next?.ok) await next.permit.release(rateHeaders(97, clock.resetIn(60)));
    for (const p of firsts.slice(1)) await p.release(rateHeaders(95, clock.resetIn(60)));

    clock.advance(61_000); // the window we watched has passed: the next one starts full
    const burst: GatePermit[] = [];
    for (let i = 0; i < 10; i++) burst.push(await permit(gate));
    let eleventh = false;
    void gate.acquire('k').then(() => (eleventh = true));
    await b.settle();
    expect(eleventh).toBe(false); // at most 10 before the new window's budget is known
    void burst[0]!.release(rateHeaders(99, clock.resetIn(60)));
    await b.settle();
    expect(eleventh).toBe(true);
  });

  it('keeps the smallest Remaining within a window (answers arrive out of order)', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, rateHeaders(10, clock.resetIn(60)));
    const a = await permit(gate);
    const c = await permit(gate);
    await c.release(rateHeaders(5, clock.resetIn(60)));
    await a.release(rateHeaders(6, clock.resetIn(60))); // older answer, later arrival
    expect((await gate.snapshot('k')).remaining).toBe(5);
  });

  it('a later window replaces the budget; a late answer from an older window is ignored', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, rateHeaders(10, clock.resetIn(10)));
    const a = await permit(gate);
    const c = await permit(gate);
    const oldReset = clock.resetIn(10);
    clock.advance(11_000);
    await a.release(rateHeaders(80, clock.resetIn(60)));
    await c.release(rateHeaders(0, oldReset));
    expect((await gate.snapshot('k')).remaining).toBe(80);
  });

  it('double release counts once, and answers what the first one did', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, rateHeaders(2, clock.resetIn(60)));
    const p = await permit(gate);
    const first = await p.release();
    expect(await p.release(rateHeaders(0, clock.resetIn(60)), 429)).toEqual(first);
    expect((await gate.snapshot('k')).remaining).toBe(2);
  });

  it('unknown state: waiters are let through if the first answer teaches nothing (blind)', async () => {
    const gate = b.make(new Clock().now);
    const first = await permit(gate);
    for (let i = 1; i < FIRST_USE_BURST; i++) await permit(gate);
    const waiting = [gate.acquire('k'), gate.acquire('k')];
    let settled = 0;
    for (const w of waiting) void w.then(() => settled++);
    await b.settle();
    expect(settled).toBe(0); // held behind the first request
    void first.release(); // a connection error: no headers
    const decisions = await Promise.all(waiting);
    expect(decisions.every((d) => d.ok)).toBe(true);
  });

  it('forget wakes waiters on the dropped state', async () => {
    const gate = b.make(new Clock().now);
    await permit(gate);
    const waiting = gate.acquire('k');
    await gate.forget('k');
    await expect(waiting).resolves.toMatchObject({ ok: true });
  });

  it('a 429 holds until its reset even when that is earlier than the window we knew; then one request probes', async () => {
    // A token bucket's 429 names its next token, a restarted server has a new window, other
    // clients of the key spent what we thought was left: the 429 is right, our picture is not.
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, rateHeaders(50, clock.resetIn(60)));
    await spend(gate, rateHeaders(0, clock.resetIn(2)), 429);
    expect(await gate.acquire('k')).toEqual({ ok: false, resetAt: new Date(clock.ms + 2000) });
    clock.advance(2000);
    await expectOneProbe(gate, clock); // not the new-window burst: the server just proved us wrong
  });

  it('an answer that raced a 429 does not reopen the gate, even one naming a later window', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    const a = await permit(gate);
    const c = await permit(gate);
    expect(await a.release(rateHeaders(0, clock.resetIn(5)), 429)).toEqual({ remaining: 0, resetAt: new Date(clock.ms + 5000) });
    await c.release(rateHeaders(40, clock.resetIn(60))); // sent before the 429 arrived: an older picture
    expect(await gate.snapshot('k')).toEqual({ remaining: 0, resetAt: new Date(clock.ms + 5000) });
    expect((await gate.acquire('k')).ok).toBe(false);
  });

  it('a 429 arriving after its reset (slow answer, lagging server clock) holds nothing but restarts single probes', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, rateHeaders(80, clock.resetIn(60)));
    const late = await permit(gate);
    clock.advance(3000);
    await late.release(rateHeaders(0, clock.resetIn(-1)), 429);
    await expectOneProbe(gate, clock);
  });

  it("a 429's Retry-After wins when it ends later than its reset (relative: immune to clock skew)", async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, { ...rateHeaders(0, clock.resetIn(2)), 'retry-after': '30' }, 429);
    expect((await gate.snapshot('k')).resetAt).toEqual(new Date(clock.ms + 30_000));
  });

  it('forget keeps a pending 429: the server still refuses', async () => {
    const clock = new Clock();
    const gate = b.make(clock.now);
    await spend(gate, rateHeaders(0, clock.resetIn(30)), 429, 'held');
    await gate.forget('held');
    expect(await gate.snapshot('held')).toEqual({ remaining: 0, resetAt: new Date(clock.ms + 30_000) });
    expect(await gate.acquire('held')).toEqual({ ok: false, resetAt: new Date(clock.ms + 30_000) });
    clock.advance(30_000);
    expect((await gate.acquire('held')).ok).toBe(true);
  });

  it('property: a burst never drives an honest server below zero, and every caller gets an answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }), // server budget left in the window
        fc.integer({ min: 1, max: 60 }), // concurrent commands
        fc.array(fc.nat(), { minLength: 1, maxLength: 400 }), // scheduling choices
        async (budget, commands, choices) => {
          const clock = new Clock();
          const gate = b.make(clock.now);
          const reset = clock.resetIn(60);
          let serverLeft = budget;
          let upstream429 = 0;
          const inTransit: GatePermit[] = []; // sent, not yet counted by the server
          const answers: Array<{ p: GatePermit; status: number; remaining: number }> = [];
          const decisions: GateDecision[] = [];
          const pending = Array.from({ length: commands }, () =>
            gate.acquire('k').then((d) => {
              decisions.push(d);
              if (d.ok) inTransit.push(d.permit);
            }),
          );
          await b.settle();
          let step = 0;
          while (inTransit.length + answers.length > 0 && step < 10_000) {
            const c = choices[step % choices.length] ?? 0;
            step++;
            if (answers.length === 0 || (inTransit.length > 0 && c % 2 === 0)) {
              const [p] = inTransit.splice(c % inTransit.length, 1);
              if (!p) continue;
              if (serverLeft === 0) {
                upstream429++;
                answers.push({ p, status: 429, remaining: 0 });
              } else {
                serverLeft--;
                answers.push({ p, status: 200, remaining: serverLeft });
              }
            } else {
              const [a] = answers.splice(c % answers.length, 1);
              if (!a) continue;
              void a.p.release(rateHeaders(a.remaining, reset), a.status);
              await b.settle();
            }
          }
          await Promise.all(pending);
          expect(decisions).toHaveLength(commands);
          // Only the first-use burst, sent before any answer, may meet an exhausted window.
          const blindBurst = Math.min(FIRST_USE_BURST, commands);
          expect(upstream429).toBeLessThanOrEqual(Math.max(0, blindBurst - budget));
          expect(decisions.filter((d) => d.ok).length).toBeLessThanOrEqual(Math.max(budget, blindBurst));
          expect(decisions.some((d) => d.ok)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('MemoryRateGate bounds', () => {
  it('evicts idle keys beyond maxKeys, never one with a request in flight', async () => {
    const clock = new Clock();
    const gate = new MemoryRateGate({ now: clock.now, maxKeys: 3 });
    const busy = await permit(gate, 'busy');
    for (const k of ['a', 'b', 'c', 'd', 'e']) await spend(gate, rateHeaders(5, clock.resetIn(60)), undefined, k);
    expect(gate.size).toBe(3);
    expect(await gate.snapshot('busy')).toEqual({ remaining: null, resetAt: null }); // unknown but tracked
    await busy.release(rateHeaders(9, clock.resetIn(60)));
    expect((await gate.snapshot('busy')).remaining).toBe(9);
    expect(await gate.snapshot('a')).toEqual({ remaining: null, resetAt: null }); // evicted
  });

  it('eviction keeps a pending 429: the server still refuses', async () => {
    const clock = new Clock();
    const gate = new MemoryRateGate({ now: clock.now, maxKeys: 2 });
    await spend(gate, rateHeaders(0, clock.resetIn(30)), 429, 'held');
    await gate.forget('held');
    for (const k of ['a', 'b', 'c']) await spend(gate, rateHeaders(5, clock.resetIn(60)), undefined, k);
    expect(await gate.acquire('held')).toEqual({ ok: false, resetAt: new Date(clock.ms + 30_000) });
    clock.advance(30_000);
    expect((await gate.acquire('held')).ok).toBe(true);
  });
});
